/**
 * The daemon's visibility settings, read where the CLI reads everything (issue 25): the status
 * token (OBSYNC_STATUS_TOKEN or its _FILE twin over `statusToken` in obsync.yaml) and the
 * notification sinks of `notifications:`, each reached over HTTP through src/remote. A bad value
 * is an error at start-up naming the variable or the key.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { Secret } from '../core/secret.js';
import type { ObsyncConfig } from '../config/schema.js';
import type { DaemonMetrics } from '../daemon/metrics.js';
import type { Logger } from '../log/logger.js';
import { readRegularFile } from '../manifests/files.js';
import type { ChangesLookup } from '../notify/changes.js';
import { Notifier, type SinkSpec } from '../notify/notifier.js';
import { sinkPoster } from '../remote/sink.js';
import type { CliIO } from './io.js';
import { proxyFromEnv } from './network.js';

const TOKEN = /^[\x21-\x7e]{16,}$/;

/** The status token, or none (the status page is then open, like the probes). */
export function statusToken(io: CliIO, config: ObsyncConfig | undefined): Secret | undefined {
  const file = io.env.OBSYNC_STATUS_TOKEN_FILE;
  let value: string | undefined;
  let from = 'OBSYNC_STATUS_TOKEN';
  if (file) {
    from = 'OBSYNC_STATUS_TOKEN_FILE';
    try {
      value = readRegularFile(resolve(io.cwd, file)).trim();
    } catch (err) {
      throw new ConfigError(`OBSYNC_STATUS_TOKEN_FILE points to ${file}, which cannot be read`, { cause: err });
    }
  } else if (io.env.OBSYNC_STATUS_TOKEN !== undefined) value = io.env.OBSYNC_STATUS_TOKEN;
  else if (config?.statusToken !== undefined) return new Secret(config.statusToken);
  if (value === undefined) return undefined;
  const token = new Secret(value);
  if (!TOKEN.test(value))
    throw new ConfigError(`${from}: a status token has at least 16 printable ASCII characters and no spaces`, {
      hint: 'e.g. openssl rand -hex 24',
    });
  return token;
}

/** The notifier of `notifications:`, or none. Sinks are named by position: their URL is a secret. */
export function notifierOf(
  io: CliIO,
  config: ObsyncConfig | undefined,
  deps: { logger: Logger; metrics: DaemonMetrics; version: string; changes?: ChangesLookup },
): Notifier | undefined {
  const sinks = config?.notifications ?? [];
  if (sinks.length === 0) return undefined;
  const proxy = proxyFromEnv(io.env);
  const specs: SinkSpec[] = sinks.map((sink, index) => ({
    index,
    type: sink.type,
    format: sink.format,
    events: sink.events,
    targets: sink.targets,
    maxPerMinute: sink.maxPerMinute,
    poster: sinkPoster(sink.url, {
      proxy,
      path: sink.type === 'alertmanager' ? 'api/v2/alerts' : undefined,
      headers: sink.headers,
      signingSecret: sink.signingSecret,
    }),
  }));
  return new Notifier(specs, {
    logger: deps.logger,
    version: deps.version,
    replica: `${hostname()}/${process.pid}`,
    count: (sink, type, result) => deps.metrics.notifications.inc({ sink, type, result }),
    ...(deps.changes ? { changes: deps.changes } : {}),
  });
}
