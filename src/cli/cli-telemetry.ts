/**
 * obsync's own telemetry in the CLI (issue 45, docs/telemetry.md): started once per command from
 * the environment, a span around the command's action, shut down (flushed) when it returns — for
 * `obsync run`, after its SIGTERM's graceful stop. program.ts imports this module only when an
 * OTLP endpoint variable is set, so a command without telemetry loads none of src/telemetry.
 */
import type { Command } from 'commander';
import { ATTR, SPAN, startTelemetry, type Telemetry } from '../telemetry/index.js';
import type { PromRegistry } from '../telemetry/prom-producer.js';
import { ExitRequest, type CliIO } from './io.js';
import { VERSION } from './version.js';

/** The daemon's metrics registry, known only once `obsync run` made it; empty until then. */
export class MetricsSlot implements PromRegistry {
  #registry: PromRegistry | undefined;
  use(registry: PromRegistry): void {
    this.#registry = registry;
  }
  getMetricsAsJSON(): Promise<unknown> {
    return this.#registry?.getMetricsAsJSON() ?? Promise.resolve([]);
  }
}

/** Starts telemetry from the command's environment (the process's, with the .env file read); NO_TELEMETRY when not configured. */
export async function startCliTelemetry(io: CliIO): Promise<void> {
  const metrics = new MetricsSlot();
  io.telemetry = await startTelemetry(io.env, { version: VERSION, promRegistry: metrics });
  if (io.telemetry.enabled) io.telemetryMetrics = metrics;
}

/**
 * The command's span around its action (`obsync.command`: the command, its targets, its result); telemetry
 * shut down after. `obsync run` has none: each of its runs is a root span.
 */
export async function tracedCommand(telemetry: Telemetry, command: Command, action: () => unknown): Promise<unknown> {
  try {
    // The daemon's runs are each a root span (a trace per run): no span lives as long as the process.
    if (command.name() === 'run' && command.parent?.parent == null) return await action();
    return await telemetry.span(SPAN.command, commandAttributes(command), async (span) => {
      try {
        const value = await action();
        span.setAttributes({ [ATTR.result]: process.exitCode !== undefined && Number(process.exitCode) !== 0 ? 'failure' : 'success' });
        return value;
      } catch (err) {
        const success = err instanceof ExitRequest && err.exitCode === 0;
        span.setAttributes({ [ATTR.result]: success ? 'success' : 'failure' });
        if (err instanceof ExitRequest && !success) span.fail(`exit code ${err.exitCode}`);
        throw err;
      }
    });
  } finally {
    await telemetry.shutdown();
  }
}

function commandAttributes(command: Command): Record<string, string | readonly string[]> {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  const target: unknown = command.opts().target;
  const targets = Array.isArray(target)
    ? target.filter((t): t is string => typeof t === 'string')
    : typeof target === 'string'
      ? [target]
      : [];
  return { [ATTR.command]: words.join(' '), ...(targets.length > 0 ? { [ATTR.target]: targets } : {}) };
}
