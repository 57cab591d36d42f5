/**
 * `obsync pull`: the manifests brought up to date with the live state of owned objects, edited in
 * place (src/writeback/pull.ts computes it, src/writeback/write.ts writes it). Exit 0 when the
 * files were brought up to date (or nothing differed); 2 with --check when something would
 * change; 1 on an error or a conflict (the files with a conflict are left as they are).
 */
import { dirname, relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { readRegularFile } from '../../manifests/files.js';
import { ExitRequest, type CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';
import { parseRunOptions } from '../run-options.js';
import { newManifestsDir } from '../new-manifests-dir.js';
import { checkSelectionAcross, eachTarget, reportTargetError, Slots, TARGET_CONCURRENCY } from '../targets.js';
import { openSessions } from '../session.js';
import type { Session } from '../session-types.js';
import { refuseInvalid } from '../print-diagnostics.js';
import type { PullResult } from '../../writeback/result.js';
import { githubAnnotation } from './validate.js';

interface PullFlags {
  config?: string;
  target: string[];
  check?: boolean;
  prune?: boolean;
  includeUnmanaged?: string;
  only: string[];
  selector: string[];
  output: 'text' | 'json' | 'github';
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const collect = (v: string, all: string[]) => [...all, v];
  program
    .command('pull')
    .description('bring the manifests up to date with the live objects (edits made in the UI), editing the files in place')
    .argument('[paths...]', 'manifest files or directories (default: obsync.yaml manifests, else .)')
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
    .option('--target <name>', 'only this target (repeatable; default: every target)', collect, [])
    .option('--check', 'write nothing: exit 2 when something would change (0: up to date, 1: error or conflict)')
    .option('--prune', 'remove the manifests of owned objects deleted on the service')
    .option(
      '--include-unmanaged <selector>',
      'write new manifests for objects made on the service: Kind, tag=NAME, name=REGEX (comma: all must hold)',
    )
    .option('--selector <k=v>', 'only objects with this label (repeatable)', collect, [])
    .option('--only <Kind/name>', 'only this object (repeatable)', collect, [])
    .addOption(
      new Option('--output <format>', 'report format (json: docs/schema/pull-report.schema.json; github: annotations)')
        .choices(['text', 'json', 'github'])
        .default('text'),
    )
    .action((paths: string[], flags: PullFlags) => pullCommand(io, paths, flags));
};

async function pullCommand(io: CliIO, paths: string[], flags: PullFlags): Promise<void> {
  const { selection } = parseRunOptions({ target: [], selector: flags.selector, only: flags.only });
  const { parseUnmanagedSelector, SelectorError } = await import('../../writeback/unmanaged.js');
  let include: ReturnType<typeof parseUnmanagedSelector> | undefined;
  try {
    include = flags.includeUnmanaged === undefined ? undefined : parseUnmanagedSelector(flags.includeUnmanaged);
  } catch (err) {
    if (err instanceof SelectorError) throw new ConfigError(`--include-unmanaged: ${err.message}`);
    throw err;
  }
  const group = await openSessions(io, {
    paths,
    config: flags.config,
    targets: flags.target.length > 0 ? flags.target : undefined,
    lock: false,
    command: 'pull',
    checkManifests: refuseInvalid(io, flags.output === 'github' ? 'github' : 'text'),
    isolateTargets: true,
  });
  try {
    const { sessions, unavailable } = group;
    checkSelectionAcross(selection, sessions);
    // No --include-unmanaged: the opt-in rule of obsync.yaml (defaults.writeBack.include), checked when it was loaded.
    const configured = group.config?.defaults?.writeBack?.include;
    if (include === undefined && configured !== undefined) include = parseUnmanagedSelector(configured);
    const { pullInput } = await import('../../engine/pull-input.js');
    const inputs = await eachTarget(sessions, new Slots(TARGET_CONCURRENCY), async (s) => ({
      target: s.port.target,
      adopt: s.adopt,
      input: await pullInput(
        {
          port: s.port,
          inventory: s.inventory,
          desired: s.desired,
          ...(s.manifests ? { manifests: s.manifests } : {}),
          selection,
          prune: false,
          maxDeletes: s.defaults.maxDeletes,
          adopt: s.adopt,
          ownersElsewhere: await s.ownersElsewhere(),
        },
        { allKinds: include !== undefined },
      ),
      ...(include ? { newManifestsDir: newManifestsDir(s) } : {}),
    }));
    const { computePull } = await import('../../writeback/pull.js');
    const read = (path: string) => readText(path);
    const targets = inputs.flatMap((r) => ('value' in r ? [r.value] : []));
    // A file a target not pulled here reads too is not this pull's alone to edit (a base shared with --target's others).
    const { readersElsewhere } = await import('../targets-elsewhere.js');
    const elsewhere = readersElsewhere(group.elsewhere);
    const result = computePull(targets, read, {
      prune: flags.prune === true,
      ...(include ? { include } : {}),
      otherReaders: (file) => elsewhere(file),
    });
    await printPull(io, result, flags);
    for (const r of inputs) if ('error' in r) reportTargetError(io, r.session.port.target, r.error);
    for (const u of unavailable) reportTargetError(io, u.target, u.error);
    const failed = unavailable.length > 0 || inputs.some((r) => 'error' in r) || result.errors.length > 0;
    if (!flags.check) {
      const { writePull } = await import('../../writeback/write.js');
      const written = writePull(result, { within: projectRoot(io, sessions), read });
      if (written.masked.length > 0)
        io.stderr.write(
          `warning: ${written.masked.length} file(s): a value the service holds contains a secret obsync knows; ` +
            `it is written as (sensitive) — review the object on the service\n`,
        );
    }
    if (failed || result.conflicts.length > 0) throw new ExitRequest(1);
    const { pullChanges } = await import('../../writeback/result.js');
    if (flags.check && pullChanges(result)) throw new ExitRequest(2);
  } finally {
    await group.close();
  }
}

async function printPull(io: CliIO, result: PullResult, flags: PullFlags): Promise<void> {
  const at = (file: string) => relative(io.cwd, file) || file;
  const check = flags.check === true;
  if (flags.output === 'json') {
    const { pullReport } = await import('../../writeback/pull-json.js');
    io.stdout.write(`${JSON.stringify(pullReport(result, { check, at }), null, 2)}\n`);
    return;
  }
  const { pullAnnotations, renderPull } = await import('../../writeback/report.js');
  if (flags.output === 'github') for (const a of pullAnnotations(result, at)) io.stdout.write(`${githubAnnotation(a)}\n`);
  else io.stdout.write(renderPull(result, { cwd: io.cwd, check }));
}

function readText(path: string): string | undefined {
  try {
    return readRegularFile(path);
  } catch {
    return undefined;
  }
}

/** The project's folder: obsync.yaml's, else the working directory. */
function projectRoot(io: CliIO, sessions: readonly Session[]): string {
  const config = sessions[0]?.configPath;
  return config ? dirname(resolve(config)) : resolve(io.cwd);
}
