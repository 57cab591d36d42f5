/** One target's session: its manifest tree, its connection, its inventory (and lease), and what it is told of obsync.yaml. */
import type { Diagnostic } from '../core/diagnostics.js';
import type { InventoryStore } from '../core/inventory.js';
import type { EventBus } from '../events/bus.js';
import { FenceSlot, READ_ONLY } from '../core/fence.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { InventoryAccess, StateBackend } from '../inventory/backend.js';
import { LeaseElector } from '../inventory/elector.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { Logger } from '../log/logger.js';
import type { CliIO } from './io.js';
import { projectPaths } from './project-paths.js';
import { backtestDefaults } from './backtest-options.js';
import { manifestFileScope } from '../config/file-scope.js';
import type { ResolvedTarget } from '../config/target-resolution.js';
import { manifestPaths } from '../config/trees.js';
import type { LoadedFiles } from '../manifests/loaded-files.js';
import { loadTargetTree, type TargetTree } from '../manifests/targets.js';
import { targetIgnoreRules, targetMark } from '../config/field-rules.js';
import { ownersElsewhereReader } from './neighbours.js';
import { waitReporter } from './connection.js';
import type { LoadedManifests, Session, SessionOptions } from './session-types.js';
import { connectTarget, targetApi, targetName, type Connection, type Project } from './wiring.js';

export const DEFAULT_MAX_DELETES = 10;

/** One target's manifest paths (top-level plus its own, or the PATH arguments) and how to load them with its vars. */
export function targetTree(io: CliIO, opts: SessionOptions, project: Project, resolved: ResolvedTarget, loadedFiles: LoadedFiles) {
  const { config, configPath } = project;
  const name = targetName(resolved);
  const declared = project.declared.find((d) => d.name === name);
  const paths = manifestPaths({
    cwd: io.cwd,
    given: opts.pathsByTarget?.[name] ?? opts.paths,
    configPath,
    top: config?.manifests,
    own: declared?.tree?.manifests,
  });
  const files = manifestFileScope({ configPath, config, cwd: io.cwd, paths, allowFlag: opts.allowFileOutside === true, env: io.env });
  // A declared target without vars still answers ${var:} (with "target 'x' has no var").
  const ignore = targetIgnoreRules(config, name);
  const mark = targetMark(config, name);
  const tree: TargetTree = {
    target: name,
    api: targetApi(resolved),
    paths,
    vars: declared ? (declared.tree?.vars ?? {}) : undefined,
    ...(Object.keys(ignore).length > 0 ? { ignore } : {}),
    ...(mark ? { mark } : {}),
  };
  const load = () => {
    const { resources, diagnostics, emptyFiles, policies } = loadTargetTree(tree, {
      env: io.env,
      allowMissingEnv: opts.allowMissingEnv ?? false,
      files,
      loaded: loadedFiles,
      sensitive: project.sensitive,
    });
    return { desired: resources, diagnostics, manifests: { root: project.baseDir, empty: emptyFiles }, policies };
  };
  return { name, resolved, paths, load, declared: declared !== undefined };
}

export interface TargetSessionInput {
  resolved: ResolvedTarget;
  declared: boolean;
  paths: string[];
  desired: DesiredResource[];
  diagnostics: Diagnostic[];
  manifests: ManifestFiles;
  policies: PolicyRule[];
  load: () => LoadedManifests;
  project: Project;
  state: StateBackend;
  stateDir: string;
  logger: Logger;
  events: EventBus;
}

export async function openTargetSession(io: CliIO, opts: SessionOptions, input: TargetSessionInput): Promise<Session> {
  const { project, state, logger } = input;
  const config = project.config;
  let connection: Connection | undefined;
  let inventory: InventoryStore;
  let leadership: LeaseElector | undefined;
  // Bound once the inventory (and its lease) is open, before the first request of a run.
  const fence = new FenceSlot();
  try {
    connection = await connectTarget({
      resolved: input.resolved,
      declared: input.declared,
      env: io.env,
      baseDir: project.baseDir,
      stateDir: input.stateDir,
      logger,
      announce: (line) => io.stderr.write(`${line}\n`),
      onResponse: opts.onResponse,
      timeoutMs: opts.timeoutMs,
      fence,
      mark: targetMark(config, targetName(input.resolved)),
      telemetry: io.telemetry,
      ...waitReporter(io, logger, opts.waits ?? 'stderr'),
    });
    const target = connection.port.target;
    leadership = opts.elect
      ? new LeaseElector(state, target, { command: opts.command, logger, ...(opts.assignment ? { assignment: opts.assignment } : {}) })
      : undefined;
    const elector = leadership;
    const access: InventoryAccess = elector
      ? { mode: 'elected', lease: () => elector.lease() }
      : opts.lock
        ? { mode: 'write', command: opts.command }
        : { mode: 'read' };
    inventory = await state.openInventory(target, access);
    // Only apply writes to the service (under the lease): every other command's writes are refused before they leave.
    const writesService = opts.elect === true || opts.writeService === true;
    fence.bind(writesService ? inventory.writeFence() : READ_ONLY);
  } catch (err) {
    await leadership?.stop();
    await connection?.close();
    throw err;
  }
  const port = connection.port;
  const closeConnection = connection.close.bind(connection);
  return {
    port,
    identity: connection.identity,
    inventory,
    desired: input.desired,
    diagnostics: input.diagnostics,
    manifests: input.manifests,
    manifestPaths: input.paths,
    policy: { rules: input.policies, settings: config?.policy },
    ...(project.configPath ? { configPath: project.configPath } : {}),
    stateDir: input.stateDir,
    state,
    ...(leadership ? { leadership } : {}),
    defaults: {
      prune: config?.defaults?.prune ?? false,
      maxDeletes: config?.defaults?.maxDeletes ?? DEFAULT_MAX_DELETES,
      concurrency: config?.defaults?.concurrency ?? 4,
      backtest: backtestDefaults(config?.defaults?.backtest),
    },
    adopt: config?.targets?.find((t) => t.name === connection.port.target)?.adopt ?? 'by-name',
    ...(config?.defaults?.schedule ? { schedule: config.defaults.schedule } : {}),
    embedded: input.resolved.kind === 'embedded',
    logger,
    ...(io.telemetry?.enabled ? { telemetry: io.telemetry } : {}),
    events: input.events,
    shown: projectPaths(io.cwd),
    reload: input.load,
    ownersElsewhere: ownersElsewhereReader(state, connection.identity, input.resolved.kind === 'embedded', project.services),
    async close() {
      try {
        await inventory.close();
      } finally {
        await leadership?.stop();
        await closeConnection();
      }
    },
  };
}
