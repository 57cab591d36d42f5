/** `obsync run`: the long-lived reconciler (container entrypoint), for every declared target (or the ones given) in one process. */
import { hostname } from 'node:os';
import cron from 'node-cron';
import { Option, type Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { checkPolicy } from '../../policy/check.js';
import { projectFinding } from '../policy-rules.js';
import { targetWriteBack, type TargetWriteBack } from '../write-back.js';
import { targetIgnoreSuggestions } from '../../config/field-rules.js';
import { Daemon } from '../../daemon/daemon.js';
import type { DaemonOptions } from '../../daemon/daemon-deps.js';
import { DaemonHost } from '../../daemon/host.js';
import { DaemonMetrics } from '../../daemon/metrics.js';
import { Sharding } from '../../daemon/shards.js';
import { DEFAULT_PARALLEL_RUNS, RunSlots } from '../../daemon/slots.js';
import type { TargetAssignment } from '../../inventory/elector.js';
import { EventBus } from '../../events/bus.js';
import { planChanges, type ChangesLookup } from '../../notify/changes.js';
import type { Logger } from '../../log/logger.js';
import type { CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';
import { VERSION } from '../version.js';
import { forgetServedUrl, recordServedUrl } from '../healthcheck-url.js';
import { milliseconds, wholeNumber } from '../numbers.js';
import { backtestSettings } from '../backtest-options.js';
import { commonRunOptions, parseRunOptions, type RawRunOptions } from '../run-options.js';
import { cliLogger } from '../cli-logger.js';
import { openSessions } from '../session.js';
import { daemonOutput } from '../daemon-output.js';
import { notifierOf, statusToken } from '../visibility.js';

interface RunFlags extends RawRunOptions {
  schedule?: string;
  watch: boolean;
  mode: 'apply' | 'plan';
  listen?: string;
  debounce: number;
  concurrency?: number;
  parallelRuns: number;
  previews: boolean;
}

const DEFAULT_SCHEDULE = '*/5 * * * *';
const SHUTDOWN_MS = 8_000;
/** Notifications still queued at shutdown get this long (within the 10 s a stop may take). */
const NOTIFY_GRACE_MS = 1_000;

export function parseListen(value: string): { host: string; port: number } {
  const i = value.lastIndexOf(':');
  const host = value.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(value.slice(i + 1));
  if (i <= 0 || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`--listen '${value}' is not HOST:PORT (e.g. 127.0.0.1:9464)`);
  return { host, port };
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const cmd = program
    .command('run')
    .description(
      'reconcile continuously: at start-up, on a schedule and when manifests change; serves the status page ' +
        '(/), /api/status, /api/events, /livez /readyz /metrics',
    )
    .argument('[paths...]', 'manifest files or directories')
    .option('--schedule <cron>', `cron expression, UTC (default: defaults.schedule or "${DEFAULT_SCHEDULE}")`)
    .option('--no-watch', 'do not watch the manifest files')
    .option('--no-previews', "do not draw the last plan's pictures for the status page (the renderer costs about 47 MB resident)")
    .addOption(new Option('--mode <mode>', 'apply heals drift; plan only reports it').choices(['apply', 'plan']).default('apply'))
    .option('--listen <host:port>', 'status page, health and metrics address (default 127.0.0.1:9464, env OBSYNC_LISTEN)')
    .option('--debounce <ms>', 'quiet time after a file change before a run', milliseconds, 1_000)
    .option('--concurrency <n>', 'requests in flight at once (1-64)', wholeNumber(1, 64))
    .option(
      '--parallel-runs <n>',
      'targets reconciled at once by this process (1-256); the others wait their turn',
      wholeNumber(1, 256),
      DEFAULT_PARALLEL_RUNS,
    );
  commonRunOptions(cmd).action(async (paths: string[], flags: RunFlags) => {
    let logger: Logger | undefined;
    const output = daemonOutput(io, () => (logger ??= cliLogger(output.io, 'info')));
    try {
      await runDaemon(output.io, paths, flags);
    } catch (err) {
      throw output.failure(err);
    } finally {
      output.close();
    }
  });
};

async function runDaemon(io: CliIO, paths: string[], flags: RunFlags): Promise<void> {
  const opts = parseRunOptions(flags);
  const listen = parseListen(flags.listen ?? io.env.OBSYNC_LISTEN ?? '127.0.0.1:9464');
  const metrics = new DaemonMetrics(VERSION);
  io.telemetryMetrics?.use(metrics.registry);
  const onResponse = (target: string, method: string, status: number) => metrics.apiRequests.inc({ target, method, code: String(status) });
  // Apply mode competes for each target's writer lease: one replica writes, the others stand by.
  // On the PostgreSQL state the replicas share the targets: each competes only for its own (./shards).
  let sharding: Sharding | undefined;
  const assignment = (target: string): TargetAssignment => sharding?.assignment(target) ?? { mine: true };
  const group = await openSessions(io, {
    paths,
    config: flags.config,
    targets: flags.target,
    lock: false,
    elect: flags.mode === 'apply',
    assignment,
    parallelRuns: flags.parallelRuns,
    command: 'run',
    logLevel: 'info',
    onResponse,
    timeoutMs: opts.timeoutMs,
    allowFileOutside: flags.allowFileOutside,
    waits: 'log',
    implicitSandbox: false,
  });
  const schedule = flags.schedule ?? group.sessions[0]?.schedule ?? DEFAULT_SCHEDULE;
  if (!cron.validate(schedule)) {
    await group.close();
    throw new ConfigError(`the schedule '${schedule}' is not a cron expression (5 fields, UTC; e.g. "*/5 * * * *")`);
  }
  let token: ReturnType<typeof statusToken>;
  try {
    token = statusToken(io, group.config);
  } catch (err) {
    await group.close();
    throw err;
  }
  const events = new EventBus({
    logger: group.logger,
    levels: 'by-event',
    count: (target, event) => metrics.events.inc({ target, event }),
  });
  events.subscribe((e) => metrics.observeEvent(e));
  // Field changes in notifications come from each target's last plan: read when its run finishes.
  const changes: ChangesLookup = (target, addresses) => planChanges(daemons.find((d) => d.target === target)?.lastPlan()?.plan, addresses);
  const notifier = notifierOf(io, group.config, { logger: group.logger, metrics, version: VERSION, changes });
  if (notifier) events.subscribe((e) => notifier.observe(e));
  // One limit for every target of this process: their runs share its CPU and its state connections.
  const slots = new RunSlots(flags.parallelRuns);
  metrics.observeSlots(slots);
  let writeBacks: TargetWriteBack[];
  try {
    writeBacks = group.sessions.map((session) => targetWriteBack(io, group.config, session, group.sessions, group.elsewhere));
  } catch (err) {
    await notifier?.close(0);
    await group.close();
    throw err;
  }
  for (const [i, w] of writeBacks.entries())
    if (flags.mode === 'plan' && w.drift !== undefined && w.drift !== 'report')
      group.logger.warn(
        { target: group.sessions[i]?.port.target, drift: w.drift },
        'drift setting not used: obsync run --mode plan writes nothing, drift is reported',
      );
  const daemons = group.sessions.map(
    (session, i) =>
      new Daemon(
        {
          port: session.port,
          inventory: session.inventory,
          ...(session.leadership ? { leadership: session.leadership } : {}),
          loadDesired: () => session.reload(),
          policy: (plan, desired, rules) =>
            checkPolicy({
              resources: desired,
              rules,
              settings: session.policy.settings,
              target: { name: session.port.target, variant: session.port.variant },
              plan,
            }).map((f) => projectFinding(session.shown, f)),
          ownersElsewhere: () => session.ownersElsewhere(),
          watchPaths: session.manifestPaths,
          logger: session.logger,
          metrics,
          ...(session.telemetry ? { telemetry: session.telemetry } : {}),
          events,
          embedded: session.embedded,
          identity: session.identity,
          slots,
          ...(writeBacks[i]?.writeBack ? { writeBack: writeBacks[i].writeBack } : {}),
        },
        {
          mode: flags.mode,
          schedule,
          jitterMs: 10_000,
          prune: opts.prune ?? session.defaults.prune,
          pruneCascade: opts.pruneCascade ?? false,
          maxDeletes: opts.maxDeletes ?? session.defaults.maxDeletes,
          concurrency: flags.concurrency ?? session.defaults.concurrency,
          selection: opts.selection,
          adopt: session.adopt,
          shutdownMs: SHUTDOWN_MS,
          ...(writeBacks[i]?.drift ? { drift: writeBacks[i].drift } : {}),
          ignoreSuggestions: targetIgnoreSuggestions(group.config, session.port.target),
          previews: flags.previews,
          ...daemonBacktest(backtestSettings(opts, session.defaults.backtest, true)),
        },
      ),
  );
  const state = group.sessions[0]?.state;
  if (flags.mode === 'apply' && state?.replicas) {
    sharding = new Sharding({
      registry: state.replicas,
      me: { id: `${hostname()}/${process.pid}`, host: hostname(), pid: process.pid, version: VERSION, leaseMs: state.timing.leaseMs },
      targets: daemons.map((d) => d.target),
      intervalMs: state.timing.renewMs,
      logger: group.logger,
      metrics,
      events,
    });
  } else if (flags.mode === 'apply') {
    group.logger.info(
      { state: state?.kind },
      'one leader per target: replicas share the targets only on the PostgreSQL state (state.backend: postgres)',
    );
  }
  const host = new DaemonHost(daemons, {
    listen,
    watch: flags.watch,
    debounceMs: flags.debounce,
    logger: group.logger,
    metrics,
    events,
    version: VERSION,
    statusToken: token,
    elect: flags.mode === 'apply',
    sharding,
  });
  // SIGHUP (a closed terminal, or `kill -HUP` as to any daemon) reconciles now; by default it would end the process.
  const hangup = () => host.reconcileNow('SIGHUP');
  process.on('SIGHUP', hangup);
  try {
    // The first heartbeat assigns the targets before any daemon competes for one.
    await sharding?.start(daemons);
    await host.start();
    if (sharding) sharding.listen = host.url;
  } catch (err) {
    process.off('SIGHUP', hangup);
    await sharding?.leave();
    await host.stop();
    await notifier?.close(0);
    await Promise.all(writeBacks.map((w) => w.dispose()));
    await group.close();
    throw err;
  }
  const urlOut = io.env.OBSYNC_URL_OUT;
  if (urlOut && host.url) recordUrl(group.logger, urlOut, host.url);
  // A log line like every other (JSON for a collector), not text on stderr; sharing is logged where it is decided.
  group.logger.info(
    {
      targets: daemons.map((d) => d.target),
      mode: flags.mode,
      url: `${host.url ?? '?'}/`,
      ...(sharding ? { replica: sharding.id } : {}),
    },
    'reconciling: status page, health and metrics served',
  );
  await waitForSignal(group.logger);
  // Out of the registry first (the others re-divide at once), then every run ends and its lease is released.
  await sharding?.leave();
  if (urlOut) forgetServedUrl(urlOut);
  await host.stop();
  process.off('SIGHUP', hangup);
  await notifier?.close(NOTIFY_GRACE_MS);
  await Promise.all(writeBacks.map((w) => w.dispose()));
  await group.close();
}

/** For the image's HEALTHCHECK (src/cli/healthcheck.ts); a file it cannot write costs only that. */
function recordUrl(logger: Pick<Logger, 'warn'>, file: string, url: string): void {
  try {
    recordServedUrl(file, url);
  } catch (err) {
    logger.warn({ file, err: err instanceof Error ? err.message : String(err) }, 'cannot record the served URL for the healthcheck');
  }
}

function daemonBacktest(settings: ReturnType<typeof backtestSettings>): Pick<DaemonOptions, 'backtest'> {
  return settings ? { backtest: settings } : {};
}

/** Resolves on the first SIGTERM/SIGINT; a second one exits at once. */
function waitForSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals) => {
      if (received) {
        logger.warn({ signal }, 'second signal: exiting now');
        logger.flush();
        process.exit(130);
      }
      received = true;
      logger.info({ signal }, 'signal received: shutting down');
      resolve();
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}
