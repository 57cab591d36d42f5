/**
 * `obsync export`: the live objects of a target as manifests, one file per object in a folder per
 * kind, with the editor schema and an env.example of the variables that stand for secrets (the
 * secret values are never written). With --adopt, obsync then owns every exported object.
 */
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { isWithin } from '../../manifests/files.js';
import type { LiveObject } from '../../core/live.js';
import type { ExportResult } from '../../export/exporter.js';
import type { AnyKind } from '../../kinds/registry.js';
import type { CliIO } from '../io.js';
import type { Session } from '../session-types.js';
import type { CommandRegistrar } from '../registrar.js';
import { adopt, warnDeclaredElsewhere } from './export-adopt.js';
import { writeAll } from './export-files.js';

interface ExportFlags {
  config?: string;
  target?: string;
  kind?: string[];
  match?: string;
  outDir: string;
  adopt?: boolean;
  force?: boolean;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  program
    .command('export')
    .description('write the live objects of a target as manifests (secrets as ${env:} placeholders); --adopt: obsync owns them')
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
    .option('--target <name>', 'target to read (default: defaults.target or the only target)')
    .option(
      '--kind <kind...>',
      'only these kinds (Dashboard, Alert, Webhook, SavedSearch, Source, Connection, Pipe, PipeSshKey; ' +
        'TeamMember, Role, TeamSettings only when named)',
    )
    .option('--match <regex>', 'only objects whose display name matches this regular expression')
    .option('--out-dir <dir>', 'directory to write the manifests to', 'manifests')
    .option('--adopt', 'record ownership of every exported object in the state, so the next apply writes nothing and prune works')
    .option('--force', 'overwrite exported files whose content differs')
    .action((flags: ExportFlags) => exportCommand(io, flags));
};

async function exportCommand(io: CliIO, flags: ExportFlags): Promise<void> {
  const { isKind, KINDS } = await import('../../kinds/registry.js');
  const kinds = flags.kind?.flatMap((k) => k.split(',')).filter((k) => k !== '');
  for (const k of kinds ?? [])
    if (!isKind(k)) throw new ConfigError(`--kind ${k} is not a kind obsync manages`, { hint: `one of ${KINDS.join(', ')}` });
  const match = compileMatch(flags.match);
  const { openSession } = await import('../session.js');
  const session = await openSession(io, {
    paths: [],
    config: flags.config,
    targets: flags.target ? [flags.target] : undefined,
    lock: flags.adopt === true,
    command: 'export',
    allowMissingEnv: true,
  });
  try {
    const outDir = resolve(io.cwd, flags.outDir);
    const read = readByTarget(outDir, session.manifestPaths);
    // Owned objects whose manifests no plan reads would all be pruned by the next `plan --prune`:
    // refused before the service is asked anything.
    if (flags.adopt && !read)
      throw new ConfigError(
        `${relative(io.cwd, outDir) || '.'} is not among the manifest paths target '${session.port.target}' ` +
          `reads (${session.manifestPaths.map((p) => relative(io.cwd, p) || '.').join(', ')}); nothing was ` +
          `read, written or adopted`,
        { hint: 'export into one of them with --out-dir, or add the directory to manifests (or targets[].manifests) in obsync.yaml first' },
      );
    const { exportLive, SCHEMA_FILE } = await import('../../export/exporter.js');
    const objects = await readExportable(io, session, kinds);
    const result = exportLive({
      objects,
      kinds: kinds ? new Set(kinds) : undefined,
      match,
      owned: session.inventory.entries(),
      target: session.port.target,
    });
    const { documentJsonSchema } = await import('../../config/json-schema.js');
    const files = new Map<string, string>(result.manifests.map((m) => [m.file, m.text]));
    files.set(SCHEMA_FILE, `${JSON.stringify(documentJsonSchema(), null, 2)}\n`);
    if (result.variables.length > 0) files.set('env.example', result.envExample);
    writeAll(io, outDir, files, flags.force === true);
    printExported(io, session.port.target, relative(io.cwd, outDir) || '.', result, flags.adopt === true);
    warnDeclaredElsewhere(io, session, result, outDir);
    if (!read)
      io.stderr.write(
        `note: target '${session.port.target}' does not read ${relative(io.cwd, outDir) || '.'}: add it to ` +
          `manifests (or targets[].manifests) in obsync.yaml for plan and apply to use the exported files\n`,
      );
    if (flags.adopt) await adopt(io, session, outDir, result);
  } finally {
    await session.close();
  }
}

/** Every kind the target serves; one it refuses that not every target has (pipes) is left out, unless --kind asked for it. */
async function readExportable(
  io: CliIO,
  session: Session,
  kinds: readonly string[] | undefined,
): Promise<(kind: AnyKind) => readonly LiveObject[] | undefined> {
  const { readLive } = await import('../../engine/live.js');
  const { REGISTRY } = await import('../../kinds/registry.js');
  const { ApiError, CapabilityError } = await import('../../core/errors.js');
  const { port } = session;
  const served = REGISTRY.filter((d) => port.collection(d.kind) !== null);
  const unserved = (kinds ?? []).filter((k) => !served.some((d) => d.kind === k));
  if (unserved.length > 0)
    throw new ConfigError(`the target '${port.target}' (${port.variant}) has no ${unserved.join(', ')} objects to export`);
  const live = await readLive(
    port,
    served.filter((d) => d.read === 'always'),
  );
  const optional = new Map<string, readonly LiveObject[]>();
  // The access kinds (people, roles) only when --kind names them.
  const wanted = (d: (typeof served)[number]) => (kinds ? kinds.includes(d.kind) : d.exportOnRequest !== true);
  for (const def of served.filter((d) => d.read !== 'always' && wanted(d))) {
    try {
      const read = await readLive(port, [def]);
      const unsupported = read.unsupported?.(def.kind);
      if (unsupported !== undefined && kinds?.includes(def.kind)) throw new ConfigError(`${def.noun}s not exported: ${unsupported}`);
      const unread = read.unread?.(def.kind);
      // An idle service's pipes: export reads, it never wakes the service.
      if (unread !== undefined && kinds?.includes(def.kind)) throw new ConfigError(`${def.noun}s not exported: ${unread}`);
      if (unread !== undefined) io.stderr.write(`note: ${def.noun}s not exported: ${unread} (\`obsync apply\` wakes it)\n`);
      else optional.set(def.kind, read.objects(def.kind) ?? []);
    } catch (err) {
      if (kinds?.includes(def.kind)) throw err;
      if (
        !(err instanceof ApiError || err instanceof CapabilityError) ||
        (err instanceof ApiError && ![403, 404, 501].includes(err.status))
      )
        throw err;
      io.stderr.write(`note: ${def.noun}s not exported: the target does not serve them (${err.message})\n`);
    }
  }
  return (k) => optional.get(k) ?? live.objects(k);
}

function printExported(io: CliIO, target: string, shown: string, result: ExportResult, adopting: boolean): void {
  const count = result.manifests.length;
  io.stdout.write(`Exported ${count} object${count === 1 ? '' : 's'} from target '${target}' to ${shown}/\n`);
  for (const m of result.manifests)
    io.stdout.write(`  ${m.address}  ${m.file}${m.notes.length > 0 ? '  (see the notes in the file)' : ''}\n`);
  if (result.variables.length > 0) {
    io.stdout.write(`\nSecrets were not written. Set these variables (listed in ${shown}/env.example) before validate, plan or apply:\n`);
    for (const v of result.variables) io.stdout.write(`  ${v.name}  (${v.address} spec.${v.path})\n`);
  }
  if (result.renames.length > 0) {
    const some = result.renames
      .slice(0, 3)
      .map((r) => `${r.address} → ${r.to}`)
      .join(', ');
    io.stderr.write(
      `note: ${result.renames.length} exported object${result.renames.length === 1 ? ' keeps' : 's keep'} ` +
        `the name obsync owns ${result.renames.length === 1 ? 'it' : 'them'} under, not the stable one ` +
        `(${some}${result.renames.length > 3 ? ', …' : ''}): to rename, set metadata.name to the new name and ` +
        `metadata.previousNames: [the old one] (the note in each file says it); the next apply moves the ` +
        `ownership\n`,
    );
  }
  if (adopting) return;
  if (result.sharedKeys.length > 0) {
    const some = result.sharedKeys.slice(0, 3).join(', ');
    io.stderr.write(
      `note: ${result.sharedKeys.length} exported objects share their natural key (e.g. a dashboard's name) ` +
        `with another object (${some}${result.sharedKeys.length > 3 ? ', …' : ''}): a plan cannot tell them ` +
        `apart by it until obsync owns them; \`obsync export --adopt\` binds each manifest to its object\n`,
    );
  }
  io.stderr.write(
    'next: `obsync plan` shows no change for the exported objects; `obsync export --adopt` (or `obsync import`) makes obsync own them\n',
  );
}

function compileMatch(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new ConfigError(`--match ${JSON.stringify(pattern)} is not a regular expression: ${(err as Error).message}`);
  }
}

/** Whether a plan of the target reads the directory (it is one of its manifest paths, or below one). */
function readByTarget(dir: string, manifestPaths: readonly string[]): boolean {
  return manifestPaths.some((p) => isWithin(resolve(p), dir));
}
