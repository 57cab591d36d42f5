/**
 * `obsync state list | show | rm | mv | migrate`: what obsync owns, per target, in the configured
 * state backend (file or PostgreSQL). `rm` forgets an entry without touching the object; `mv`
 * records a rename (./state-mv.ts); `migrate` copies the whole state to the other backend. Heavy
 * modules load inside the actions.
 */
import { Option, type Command } from 'commander';
import type { ObsyncConfig } from '../../config/schema.js';
import type { SkippedRow } from '../../core/inventory.js';
import type { Address } from '../../core/plan.js';
import type { StateBackend, StateRecord } from '../../inventory/backend.js';
import type { CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';
import { formatTable } from '../table.js';

interface StateFlags {
  config?: string;
  target?: string;
  output?: 'text' | 'json';
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const state = program
    .command('state')
    .description('inspect and manage what obsync owns (list, show, rm, mv, migrate) and the replicas sharing it (replicas)');
  const common = (cmd: Command) =>
    cmd
      .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
      .option('--target <name>', 'target (default: defaults.target, the only target, or the only one in the state)');
  common(state.command('list').description('what obsync owns: kind, name, id, since'))
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((flags: StateFlags) => withState(io, flags, (backend) => list(io, backend, flags), { prepare: false }));
  common(state.command('show').description('one entry of the inventory').argument('<address>', 'Kind/name'))
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((address: string, flags: StateFlags) =>
      withState(io, flags, (backend, config) => show(io, backend, config, address, flags), { prepare: false }),
    );
  common(
    state
      .command('rm')
      .description('forget an object without deleting it: obsync no longer owns it, so prune never touches it')
      .argument('<address>', 'Kind/name'),
  ).action((address: string, flags: StateFlags) =>
    withState(io, flags, (backend, config) => forget(io, backend, config, address, flags), { prepare: true }),
  );
  common(
    state
      .command('mv')
      .description(
        'record a rename without touching the object: what obsync owns under OLD is owned under NEW (like ' +
          'terraform state mv); also a tile key: Dashboard/NAME/tiles/KEY',
      )
      .argument('<old>', 'Kind/old-name, or Dashboard/name/tiles/old-key')
      .argument('<new>', 'Kind/new-name, or Dashboard/name/tiles/new-key'),
  ).action((from: string, to: string, flags: StateFlags) =>
    withState(
      io,
      flags,
      async (backend, config) => {
        const { moveState } = await import('./state-mv.js');
        const target = await targetOf(io, backend, config, flags);
        await moveState(io, backend, target, from, to);
      },
      { prepare: true },
    ),
  );
  state
    .command('replicas')
    .description(
      'the obsync run replicas sharing the PostgreSQL state: heartbeat age, version, lease, the targets ' +
        'each leads, targets led by nobody, disagreements',
    )
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((flags: StateFlags) =>
      withState(
        io,
        flags,
        async (backend) => {
          const { printReplicas } = await import('./state-replicas.js');
          await printReplicas(io, backend, flags.output ?? 'text');
        },
        { prepare: false },
      ),
    );
  state
    .command('migrate')
    .description('copy the whole state (entries, backups, fingerprint key) to the other backend; the source is left as it was')
    .addOption(new Option('--to <backend>', 'destination backend').choices(['file', 'postgres']).makeOptionMandatory())
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
    .action((flags: { to: 'file' | 'postgres'; config?: string }) => migrate(io, flags));
};

interface LoadedConfig {
  config: ObsyncConfig | undefined;
  /** Every target obsync.yaml declares. */
  declared: string[];
  baseDir: string;
}

async function loadConfigFor(io: CliIO, flag: string | undefined): Promise<LoadedConfig> {
  const path = await import('node:path');
  const { findConfig } = await import('../config-path.js');
  const { readConfig } = await import('../wiring.js');
  const file = findConfig(io, [], flag);
  // The state needs no target's settings or credentials: none are resolved.
  const read = file ? readConfig(file, io.env, { select: () => [] }) : undefined;
  return { config: read?.config, declared: read?.declared.map((d) => d.name) ?? [], baseDir: file ? path.dirname(file) : io.cwd };
}

async function withState(
  io: CliIO,
  flags: StateFlags,
  fn: (backend: StateBackend, loaded: LoadedConfig) => Promise<void>,
  opts: { prepare: boolean },
): Promise<void> {
  const loaded = await loadConfigFor(io, flags.config);
  const { stateSpec } = await import('../state-spec.js');
  const { openStateBackend } = await import('../../inventory/open.js');
  const backend = await openStateBackend(stateSpec(io, loaded.config, loaded.baseDir), opts);
  if (backend.notice) io.stderr.write(`obsync: ${backend.notice}\n`);
  try {
    await fn(backend, loaded);
  } finally {
    await backend.close();
  }
}

async function list(io: CliIO, backend: StateBackend, flags: StateFlags): Promise<void> {
  const targets = flags.target ? [flags.target] : await backend.targets();
  const records: StateRecord[] = [];
  const { reportSkipped } = await import('./skipped-rows.js');
  for (const t of targets) {
    const read = await backend.records(t);
    records.push(...read.records);
    reportSkipped(io, read.skipped);
  }
  if (flags.output === 'json') {
    io.stdout.write(
      JSON.stringify(
        records.map((r) => ({
          target: r.target,
          kind: r.entry.kind,
          name: r.entry.name,
          id: r.entry.id,
          status: r.entry.status,
          since: r.since,
        })),
        null,
        2,
      ) + '\n',
    );
    return;
  }
  if (records.length === 0) {
    io.stderr.write(`obsync owns nothing${flags.target ? ` in target '${flags.target}'` : ''} (state: ${backend.location})\n`);
    return;
  }
  io.stdout.write(
    formatTable(
      ['TARGET', 'KIND', 'NAME', 'ID', 'SINCE'],
      records.map((r) => [r.target, r.entry.kind, r.entry.name, r.entry.id ?? '(create in flight)', r.since]),
    ),
  );
}

async function show(io: CliIO, backend: StateBackend, loaded: LoadedConfig, address: string, flags: StateFlags): Promise<void> {
  const { target, key } = await locate(io, backend, loaded, address, flags);
  const read = await backend.records(target);
  const record = read.records.find((r) => `${r.entry.kind}/${r.entry.name}` === key);
  if (!record) throw await notOwned(key, target, backend, read.skipped);
  const e = record.entry;
  // Fingerprints and the spec hash are keyed hashes, not secrets, but nobody needs them: secret paths only.
  const view = {
    target,
    address: key,
    id: e.id,
    status: e.status,
    since: record.since,
    updatedAt: e.updatedAt,
    naturalKey: e.naturalKey,
    ...(e.labels ? { labels: e.labels } : {}),
    ...(e.tiles ? { tiles: e.tiles } : {}),
    ...(e.secrets ? { secrets: Object.keys(e.secrets).sort() } : {}),
    ...(e.nonConvergent ? { nonConvergent: e.nonConvergent.map((f) => f.path) } : {}),
  };
  if (flags.output === 'json') {
    io.stdout.write(JSON.stringify(view, null, 2) + '\n');
    return;
  }
  const { stringify } = await import('yaml');
  io.stdout.write(stringify(view));
}

async function forget(io: CliIO, backend: StateBackend, loaded: LoadedConfig, address: string, flags: StateFlags): Promise<void> {
  const { target, key } = await locate(io, backend, loaded, address, flags);
  const inventory = await backend.openInventory(target, { mode: 'write', command: 'state rm' });
  try {
    const entry = inventory.get(key);
    // A row left out (unreadable, or a second owner of one object) can be forgotten too: that is its repair.
    const skipped = inventory.skipped().some((r) => r.key === key);
    if (!entry && !skipped) throw await notOwned(key, target, backend);
    await inventory.remove(key);
    io.stdout.write(
      `Forgot ${key} in target ` +
        `'${target}'${entry?.id ? ` (id ${entry.id})` : skipped ? ' (a row left out as not readable)' : ''}: ` +
        `obsync no longer owns it and will never delete it; the object itself is untouched.\n`,
    );
    io.stderr.write(
      `note: while a manifest still declares ${key}, the next apply adopts it again by natural key (or with ` +
        `\`obsync import\` for targets with adopt: explicit)\n`,
    );
  } finally {
    await inventory.close();
  }
}

async function locate(
  io: CliIO,
  backend: StateBackend,
  loaded: LoadedConfig,
  address: string,
  flags: StateFlags,
): Promise<{ target: string; key: Address }> {
  const { parseAddress } = await import('../../kinds/registry.js');
  const { ConfigError } = await import('../../core/errors.js');
  const parsed = parseAddress(address);
  if (!parsed) throw new ConfigError(`'${address}' is not Kind/name (e.g. Dashboard/checkout)`);
  return { target: await targetOf(io, backend, loaded, flags), key: `${parsed.kind}/${parsed.name}` };
}

/** The target a state command works on: --target, OBSYNC_TARGET, defaults.target, the only declared one, or the only one in the state. */
async function targetOf(io: CliIO, backend: StateBackend, loaded: LoadedConfig, flags: StateFlags): Promise<string> {
  const { ConfigError } = await import('../../core/errors.js');
  const only = loaded.declared.length === 1 ? loaded.declared[0] : undefined;
  const target = flags.target ?? io.env.OBSYNC_TARGET ?? loaded.config?.defaults?.target ?? only;
  if (target) return target;
  const inState = await backend.targets();
  if (inState.length !== 1)
    throw new ConfigError(`choose a target with --target${inState.length > 1 ? ` (the state holds ${inState.join(', ')})` : ''}`);
  return inState[0] ?? '';
}

async function notOwned(key: string, target: string, backend: StateBackend, skipped: readonly SkippedRow[] = []): Promise<Error> {
  const { ObsyncError } = await import('../../core/errors.js');
  const { skippedRowText } = await import('../../core/inventory.js');
  const row = skipped.find((r) => r.key === key);
  if (row) return new ObsyncError('STATE_ROW_SKIPPED', skippedRowText(row));
  return new ObsyncError('NOT_OWNED', `${key} is not in the state of target '${target}' (${backend.location})`, {
    hint: '`obsync state list` shows what obsync owns',
  });
}

async function migrate(io: CliIO, flags: { to: 'file' | 'postgres'; config?: string }): Promise<void> {
  const loaded = await loadConfigFor(io, flags.config);
  const { stateSpec, fileStateDir } = await import('../state-spec.js');
  const { openStateBackend } = await import('../../inventory/open.js');
  const { migrateState } = await import('../../inventory/migrate.js');
  const { ConfigError } = await import('../../core/errors.js');
  const configured = stateSpec(io, loaded.config, loaded.baseDir);
  const dir = fileStateDir(io, loaded.config, loaded.baseDir);
  const leaseSeconds = loaded.config?.state?.leaseSeconds;
  const postgres = configured.backend === 'postgres' ? configured : undefined;
  if (!postgres)
    throw new ConfigError('no PostgreSQL state is configured', {
      hint: 'set OBSYNC_STATE_URL (or state: {backend: postgres, url: ...} in obsync.yaml) to the database to migrate to or from',
    });
  const file = { backend: 'file' as const, dir, leaseSeconds };
  const [fromSpec, toSpec] = flags.to === 'postgres' ? [file, postgres] : [postgres, file];
  const from = await openStateBackend(fromSpec, { prepare: false });
  if (from.notice) io.stderr.write(`obsync: ${from.notice}\n`);
  try {
    const to = await openStateBackend(toSpec, { prepare: true });
    try {
      const report = await migrateState(from, to);
      const { reportSkipped } = await import('./skipped-rows.js');
      reportSkipped(io, report.skipped);
      for (const t of report.targets) io.stdout.write(`target '${t.target}': ${t.entries} entries and ${t.backups} backups copied\n`);
      io.stdout.write(
        `Copied the state from ${from.location} to ` +
          `${to.location}${report.keyCopied ? ', with its fingerprint key' : ''}. The source is unchanged.\n`,
      );
      io.stderr.write(
        flags.to === 'postgres'
          ? 'next: set state: {backend: postgres, url: ${env:OBSYNC_STATE_URL}, schema: ...} in obsync.yaml (or ' +
              'keep OBSYNC_STATE_URL set)\n'
          : `next: set state: {backend: file, path: ${dir}} in obsync.yaml and unset OBSYNC_STATE_URL\n`,
      );
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
