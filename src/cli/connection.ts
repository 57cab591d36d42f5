/** One target's service for the commands that talk to exactly one (keys, query), and how any connection reports its waits. */
import { ConfigError } from '../core/errors.js';
import { UNFENCED, type WriteFence } from '../core/fence.js';
import type { ResolvedTarget } from '../config/target-resolution.js';
import type { Logger } from '../log/logger.js';
import { serverFields } from '../log/fields.js';
import type { CliIO } from './io.js';
import { closeProgress, terminalProgress } from './progress.js';
import { cliLogger } from './cli-logger.js';
import { findConfig } from './config-path.js';
import { fileStateDir } from './state-spec.js';
import { connectTarget, openProject, targetName, type Connection, type ConnectInput, type Project } from './wiring.js';

/** One target's service, for the commands that talk to exactly one (keys, query). */
export async function openConnection(
  io: CliIO,
  opts: { config?: string | undefined; target?: string | undefined; timeoutMs?: number | undefined; fence?: WriteFence },
): Promise<Connection> {
  const project = openProject({
    configPath: findConfig(io, [], opts.config),
    cwd: io.cwd,
    env: io.env,
    targets: opts.target === undefined ? [] : [opts.target],
  });
  const resolved = onlyTarget(project);
  const logger = cliLogger(io, 'warn');
  const connection = await connectTarget({
    resolved,
    declared: isDeclared(project, resolved),
    env: io.env,
    baseDir: project.baseDir,
    stateDir: fileStateDir(io, project.config, project.baseDir),
    logger,
    announce: (line) => io.stderr.write(`${line}\n`),
    timeoutMs: opts.timeoutMs,
    // keys and query are not runs: no lease to hold. A command that only reads says so (search: READ_ONLY).
    fence: opts.fence ?? UNFENCED,
    telemetry: io.telemetry,
    ...waitReporter(io, logger, 'stderr'),
  });
  return {
    port: connection.port,
    identity: connection.identity,
    async close() {
      try {
        await connection.close();
      } finally {
        closeProgress(io);
      }
    },
  };
}

export function onlyTarget(project: Project): ResolvedTarget {
  const [only, ...more] = project.targets;
  if (!only || more.length > 0) {
    const names = project.targets.map(targetName);
    throw new ConfigError(`this command talks to one target, and ${names.length} are selected (${names.join(', ')})`, {
      hint: 'choose one with --target (or defaults.target in obsync.yaml)',
    });
  }
  return only;
}

function isDeclared(project: Project, resolved: ResolvedTarget): boolean {
  return project.declared.some((d) => d.name === targetName(resolved));
}

/**
 * Shows every wait over 2 s: on a terminal, a progress line that also shows retries and requests
 * slow to answer; a line on stderr otherwise (CI logs); an info log for the daemon.
 */
export function waitReporter(io: CliIO, logger: Logger, how: 'stderr' | 'log'): Pick<ConnectInput, 'onWait' | 'progress'> {
  if (how === 'log')
    return {
      onWait: (target, w) => logger.info({ target, seconds: w.seconds, ...serverFields(w.host), reason: w.reason }, 'rate limit wait'),
    };
  const terminal = terminalProgress(io);
  if (terminal) return { onWait: (_target, w) => terminal.onWait(w), progress: { onRetry: terminal.onRetry, onSlow: terminal.onSlow } };
  return { onWait: (_target, w) => io.stderr.write(`obsync: waiting ${w.seconds} s before the next request to ${w.host} (${w.reason})\n`) };
}
