/**
 * Everything a command needs to talk to one target: the config (if any), the loaded manifests,
 * the resolved target (the embedded sandbox when none is configured), its service port and the
 * inventory. Opened once per command, closed in `finally`. The types are ./session-types.ts, one
 * target's session ./target-session.ts, a run of it ./session-run.ts.
 */
import { ConfigError } from '../core/errors.js';
import { EventBus } from '../events/bus.js';
import { openStateBackend } from '../inventory/open.js';
import type { CliIO } from './io.js';
import { cliLogger } from './cli-logger.js';
import { findConfig } from './config-path.js';
import { closeProgress } from './progress.js';
import { policyPaths, policyRules, uniqueRules } from './policy-rules.js';
import { LoadedFiles } from '../manifests/loaded-files.js';
import { mergeTargetDiagnostics } from '../manifests/targets.js';
import { onlyTarget } from './connection.js';
import type { Session, SessionOptions, Sessions } from './session-types.js';
import { fileStateDir, stateSpec } from './state-spec.js';
import { openTargetSession, targetTree } from './target-session.js';
import { targetsElsewhere } from './targets-elsewhere.js';
import { openProject, type Project } from './wiring.js';

/** A command on exactly one target (for now plan, apply and run too): several selected is an error. */
export async function openSession(io: CliIO, opts: SessionOptions): Promise<Session> {
  const group = await openSessions(io, opts, (project) => void onlyTarget(project));
  const [only] = group.sessions;
  if (!only) throw new ConfigError('no target');
  return { ...only, close: () => group.close() };
}

/**
 * Every target the command uses: obsync.yaml read with only those targets' settings and
 * credentials resolved, each target's manifest tree loaded (a file without interpolation loaded once between them),
 * one state backend, then one connection and inventory per target.
 */
export async function openSessions(io: CliIO, opts: SessionOptions, check?: (project: Project) => void): Promise<Sessions> {
  const logger = cliLogger(io, opts.logLevel ?? 'warn');
  const project = openProject({
    configPath: findConfig(io, opts.paths, opts.config),
    cwd: io.cwd,
    env: io.env,
    targets: opts.targets ?? [],
    allowFileOutside: opts.allowFileOutside,
    isolateTargets: opts.isolateTargets,
    implicitSandbox: opts.implicitSandbox,
  });
  check?.(project);
  const loadedFiles = new LoadedFiles();
  const policyFolder = policyRules(policyPaths(io.cwd, project.configPath, project.config), [], io.env);
  const loaded = project.targets.map((resolved) => {
    const tree = targetTree(io, opts, project, resolved, loadedFiles);
    const load = tree.load();
    const policies = uniqueRules([...load.policies, ...policyFolder.rules]);
    return { ...tree, ...load, diagnostics: [...load.diagnostics, ...policyFolder.diagnostics], policies };
  });
  opts.checkManifests?.(mergeTargetDiagnostics(loaded.map((t) => ({ target: t.name, resources: t.desired, diagnostics: t.diagnostics }))));
  const { config, baseDir } = project;
  const stateDir = fileStateDir(io, config, baseDir);
  const state = await openStateBackend(stateSpec(io, config, baseDir), {
    prepare: opts.lock || opts.elect === true,
    ...(opts.parallelRuns ? { parallelRuns: opts.parallelRuns } : {}),
  });
  if (state.notice) io.stderr.write(`obsync: ${state.notice}\n`);
  const sessions: Session[] = [];
  const events = new EventBus({ logger, levels: 'info', ringSize: 0 });
  const closeAll = async () => {
    try {
      const closed = await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
      const failed = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      closeProgress(io);
      await state.close();
      logger.flush();
    }
  };
  try {
    for (const target of loaded) sessions.push(await openTargetSession(io, opts, { ...target, project, state, stateDir, logger, events }));
  } catch (err) {
    await closeAll();
    throw err;
  }
  const elsewhere = targetsElsewhere(
    io.cwd,
    opts,
    project,
    sessions.map((s) => s.port.target),
  );
  return { sessions: [...sessions], unavailable: project.unavailable, elsewhere, logger, config, close: closeAll };
}
