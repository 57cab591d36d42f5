/**
 * Everything a command needs to talk to one target: the config (if any), the loaded manifests,
 * the resolved target (the embedded sandbox when none is configured), its service port and the
 * inventory. Opened once per command, closed in `finally`.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { formatDiagnostic, hasErrors } from '../core/diagnostics.js';
import type { InventoryStore } from '../core/inventory.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import { openFileInventory } from '../inventory/file-store.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { CliIO } from './io.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../engine/reconcile.js';
import { githubAnnotation } from './commands/validate.js';
import type { RunOptions } from './run-options.js';
import { connectTarget, loadDesiredState, readConfig, type Connection, type ConnectInput } from './wiring.js';

export interface SessionOptions {
  paths: readonly string[];
  config?: string | undefined;
  target?: string | undefined;
  /** Take the inventory's writer lock (apply, run). */
  lock: boolean;
  command: string;
  allowMissingEnv?: boolean;
  /** Default log level (OBSYNC_LOG_LEVEL wins); the daemon logs runs at info. */
  logLevel?: string;
  onResponse?: ConnectInput['onResponse'];
}

export interface Session {
  port: ServicePort;
  inventory: InventoryStore;
  desired: DesiredResource[];
  diagnostics: Diagnostic[];
  manifestPaths: string[];
  configPath?: string;
  stateDir: string;
  backupDir: string;
  defaults: { prune: boolean; maxDeletes: number; concurrency: number };
  /** defaults.schedule of obsync.yaml. */
  schedule?: string;
  logger: Logger;
  /** Re-reads the manifests (the daemon calls it before each run). */
  reload(): { desired: DesiredResource[]; diagnostics: Diagnostic[] };
  close(): Promise<void>;
}

export const DEFAULT_MAX_DELETES = 10;

/** `--config`, else `obsync.yaml` in the single directory given, else in the working directory. */
export function findConfig(io: CliIO, paths: readonly string[], flag: string | undefined): string | undefined {
  if (flag) return resolve(io.cwd, flag);
  const [only, ...rest] = paths;
  if (only && rest.length === 0) {
    const dir = resolve(io.cwd, only);
    if (existsSync(dir) && statSync(dir).isDirectory() && existsSync(join(dir, 'obsync.yaml'))) return join(dir, 'obsync.yaml');
  }
  const here = join(io.cwd, 'obsync.yaml');
  return existsSync(here) ? here : undefined;
}

/** Logs go to stderr: pretty on a terminal, JSON lines otherwise; OBSYNC_LOG_LEVEL wins over the command's default. */
function cliLogger(io: CliIO, level: string): Logger {
  return createLogger({ format: io.stderr.isTTY ? 'pretty' : 'json', level: io.env.OBSYNC_LOG_LEVEL ?? level });
}

/** What a command adds to a reconcile run of the session (mode, saved plan, callbacks). */
export type SessionRun = Pick<ReconcileRequest, 'mode'> & Partial<Pick<ReconcileRequest, 'saved' | 'beforeApply' | 'onStepDone' | 'onStepStart' | 'concurrency' | 'signal'>>;

/** One reconcile run of the session's manifests against its target, with the run flags over obsync.yaml's defaults. */
export function reconcileSession(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  return reconcile({
    port: session.port,
    inventory: session.inventory,
    desired: session.desired,
    selection: opts.selection,
    prune: opts.prune ?? session.defaults.prune,
    pruneCascade: opts.pruneCascade ?? false,
    maxDeletes: opts.maxDeletes ?? session.defaults.maxDeletes,
    backupDir: session.backupDir,
    concurrency: session.defaults.concurrency,
    ...run,
  });
}

export async function openConnection(io: CliIO, opts: { config?: string | undefined; target?: string | undefined }): Promise<Connection> {
  const configPath = findConfig(io, [], opts.config);
  const config = configPath ? readConfig(configPath, io.env) : undefined;
  const logger = cliLogger(io, 'warn');
  return connectTarget({ config, name: opts.target, env: io.env, baseDir: configPath ? dirname(configPath) : io.cwd, logger, announce: (line) => io.stderr.write(`${line}\n`) });
}

export async function openSession(io: CliIO, opts: SessionOptions): Promise<Session> {
  const logger = cliLogger(io, opts.logLevel ?? 'warn');
  const configPath = findConfig(io, opts.paths, opts.config);
  const config = configPath ? readConfig(configPath, io.env) : undefined;
  const baseDir = configPath ? dirname(configPath) : io.cwd;
  const manifestPaths = manifestPathsFor(io, opts.paths, configPath, config?.manifests);
  const { desired, diagnostics } = loadDesiredState(manifestPaths, io.env, opts.allowMissingEnv ?? false);
  const stateDir = io.env.OBSYNC_STATE_DIR ? resolve(io.cwd, io.env.OBSYNC_STATE_DIR) : absolute(baseDir, config?.state?.path ?? '.obsync/state');
  const connection = await connectTarget({ config, name: opts.target, env: io.env, baseDir, logger, announce: (line) => io.stderr.write(`${line}\n`), onResponse: opts.onResponse });
  let inventory: InventoryStore;
  try {
    inventory = await openFileInventory({ dir: stateDir, target: connection.port.target, lock: opts.lock, command: opts.command });
  } catch (err) {
    await connection.close();
    throw err;
  }
  return {
    port: connection.port,
    inventory,
    desired,
    diagnostics,
    manifestPaths,
    ...(configPath ? { configPath } : {}),
    stateDir,
    backupDir: join(dirname(stateDir), 'backups'),
    defaults: {
      prune: config?.defaults?.prune ?? false,
      maxDeletes: config?.defaults?.maxDeletes ?? DEFAULT_MAX_DELETES,
      concurrency: config?.defaults?.concurrency ?? 4,
    },
    ...(config?.defaults?.schedule ? { schedule: config.defaults.schedule } : {}),
    logger,
    reload: () => loadDesiredState(manifestPaths, io.env, opts.allowMissingEnv ?? false),
    async close() {
      await inventory.close();
      await connection.close();
      logger.flush();
    },
  };
}

function absolute(base: string, p: string): string {
  return isAbsolute(p) ? p : resolve(base, p);
}

function manifestPathsFor(io: CliIO, given: readonly string[], configPath: string | undefined, fromConfig: readonly string[] | undefined): string[] {
  const configDir = configPath ? dirname(configPath) : undefined;
  // A single directory holding obsync.yaml stands for "that project": use its manifest list.
  const projectArg = configDir && given.length === 1 && resolve(io.cwd, given[0] ?? '') === configDir;
  if (given.length > 0 && !projectArg) return given.map((p) => resolve(io.cwd, p));
  if (configDir && fromConfig && fromConfig.length > 0) return fromConfig.map((p) => absolute(configDir, p));
  return [configDir ?? io.cwd];
}

/** Prints load diagnostics to stderr; true when any is an error (nothing may be written). */
export function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], format: 'text' | 'github'): boolean {
  for (const d of diagnostics) {
    if (format === 'github') io.stdout.write(`${githubAnnotation(d)}\n`);
    else io.stderr.write(`${formatDiagnostic(d)}\n`);
  }
  return hasErrors(diagnostics);
}

