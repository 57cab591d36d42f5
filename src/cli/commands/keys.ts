/**
 * `obsync keys create|list|disable|enable|delete` (hosted): the organization's API keys, for
 * rotating the one obsync uses. `create` puts the secret in --out (0600, never overwritten) or
 * prints it once; `list` never shows a secret (the service never returns one); a key is named by
 * its id or by its name when that is unique; `delete` asks first (or needs --auto-approve).
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { ApiError, ConfigError } from '../../core/errors.js';
import { requireCapability, type KeyCreateRequest, type KeysPort } from '../../core/ports.js';
import type { WireApiKey } from '../../core/wire.js';
import { FileWriteError, writeFileAtomically } from '../../manifests/atomic-write.js';
import { INTERRUPTED_EXIT } from '../interrupt.js';
import { ExitRequest, type CliIO } from '../io.js';
import { askOnTerminal } from '../prompt.js';
import { timeoutSeconds } from '../numbers.js';
import type { CommandRegistrar } from '../registrar.js';
import { openConnection } from '../connection.js';
import { formatTable } from '../table.js';

interface KeysFlags {
  target?: string;
  config?: string;
  name: string;
  role: string[];
  expireAt?: string;
  ip: string[];
  state: 'enabled' | 'disabled';
  out?: string;
  timeout?: number;
}

const LEGACY_ROLES = ['admin', 'developer', 'query_endpoints'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Sent when no --ip is given, so "usable from anywhere" does not depend on the service's default for a missing list. */
const ANYWHERE = { source: '0.0.0.0/0', description: 'Anywhere (obsync keys create without --ip)' };

/** Role UUIDs go to `assignedRoleIds`; the legacy names to the deprecated `roles`. */
export function rolesRequest(roles: readonly string[]): Pick<KeyCreateRequest, 'assignedRoleIds' | 'roles'> {
  const bad = roles.find((r) => !UUID.test(r) && !LEGACY_ROLES.includes(r));
  if (bad)
    throw new ConfigError(`unknown role '${bad}'`, {
      hint: `give an organization role UUID (GET /v1/organizations/{org}/roles) or one of the legacy roles ${LEGACY_ROLES.join(', ')}`,
    });
  const assignedRoleIds = roles.filter((r) => UUID.test(r)).map((r) => r.toLowerCase());
  const legacy = roles.filter((r) => !UUID.test(r));
  return { ...(assignedRoleIds.length > 0 ? { assignedRoleIds } : {}), ...(legacy.length > 0 ? { roles: legacy } : {}) };
}

export function parseIpEntry(value: string): { source: string; description?: string } {
  const i = value.indexOf(':');
  const source = i < 0 ? value : value.slice(0, i);
  if (!/^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/.test(source))
    throw new ConfigError(`--ip '${value}' is not an IPv4 address or CIDR (optionally followed by :description)`);
  return i < 0 ? { source } : { source, description: value.slice(i + 1) };
}

interface TargetFlags {
  target?: string;
  config?: string;
  timeout?: number;
}

/** The flags every keys command shares: which target, and the request deadline. */
function targetOptions(cmd: Command): Command {
  return cmd
    .option('--target <name>', 'target (hosted)')
    .option('--config <file>', 'obsync.yaml to use')
    .option('--timeout <seconds>', 'deadline of each request to the target', timeoutSeconds);
}

/** Runs `work` with the target's keys API, closing the connection after. */
async function withKeys<T>(io: CliIO, flags: TargetFlags, work: (keys: KeysPort) => Promise<T>): Promise<T> {
  const connection = await openConnection(io, {
    config: flags.config,
    target: flags.target,
    timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
  });
  try {
    return await work(requireCapability(connection.port, 'keys'));
  } finally {
    await connection.close();
  }
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  const keys = program.command('keys').description('API keys of the organization (hosted variant)');
  registerCreate(keys, io);
  targetOptions(
    keys.command('list').description('the keys of the organization: id, name, state, roles, dates, allowed addresses (never a secret)'),
  )
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((flags: TargetFlags & { output: 'text' | 'json' }) =>
      withKeys(io, flags, async (port) => listKeys(io, await port.list(), flags.output)),
    );
  for (const state of ['disabled', 'enabled'] as const) {
    const verb = state === 'disabled' ? 'disable' : 'enable';
    targetOptions(
      keys
        .command(verb)
        .description(
          state === 'disabled'
            ? 'disable a key (it stops authenticating; enable brings it back): the safe first step of retiring an old key'
            : 'enable a disabled key again',
        )
        .argument('<key>', 'the key: its id, or its name when no other key has it'),
    ).action((ref: string, flags: TargetFlags) =>
      withKeys(io, flags, async (port) => {
        const key = findKey(await port.list(), ref);
        if (key.state === state) {
          io.stdout.write(`key ${describeKey(key)} is already ${state}\n`);
          return;
        }
        const updated = await port.update(key.id, { state }).catch((err: unknown) => {
          throw keyRefusal(err, key, verb);
        });
        io.stdout.write(`${state} key ${describeKey(updated)}\n`);
      }),
    );
  }
  targetOptions(
    keys
      .command('delete')
      .description('delete a key for good (asks first on a terminal); disable it first to be sure nothing still uses it')
      .argument('<key>', 'the key: its id, or its name when no other key has it')
      .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)'),
  ).action((ref: string, flags: TargetFlags & { autoApprove?: boolean }) =>
    withKeys(io, flags, async (port) => {
      const key = findKey(await port.list(), ref);
      if (flags.autoApprove !== true) await confirmDelete(io, key);
      await port.delete(key.id).catch((err: unknown) => {
        throw keyRefusal(err, key, 'delete');
      });
      io.stdout.write(`deleted key ${describeKey(key)}\n`);
    }),
  );
};

/** A key by id, or by name when exactly one key has it. */
export function findKey(keys: readonly WireApiKey[], ref: string): WireApiKey {
  const byId = keys.find((k) => k.id === ref);
  if (byId) return byId;
  const named = keys.filter((k) => k.name === ref);
  const [only] = named;
  if (only && named.length === 1) return only;
  if (named.length > 1)
    throw new ConfigError(`${named.length} keys are named '${ref}'`, { hint: `name one by its id: ${named.map((k) => k.id).join(', ')}` });
  throw new ConfigError(`no key has the id or name '${ref}'`, {
    hint:
      keys.length === 0 ? 'the organization has no keys' : `\`obsync keys list\` shows them (names: ${keys.map((k) => k.name).join(', ')})`,
  });
}

function describeKey(key: WireApiKey): string {
  return `'${key.name}' (id ${key.id}${key.keySuffix ? `, key id ending ${key.keySuffix}` : ''})`;
}

/** The service refuses to delete (or disable) the key a request authenticates with: say which key that is and the way round it. */
function keyRefusal(err: unknown, key: WireApiKey, verb: string): unknown {
  if (err instanceof ApiError && err.status === 400 && /authenticate/i.test(err.message))
    return new ConfigError(`the service refused to ${verb} key ${describeKey(key)}: it is the key this target authenticates with`, {
      hint: 'point the target at another key first (OBSYNC_KEY_ID and OBSYNC_KEY_SECRET, or credentials in obsync.yaml), then run this again',
      cause: err,
    });
  return err;
}

async function confirmDelete(io: CliIO, key: WireApiKey): Promise<void> {
  if (io.stdin.isTTY !== true) {
    io.stderr.write('error: not on a terminal: refusing to delete a key without --auto-approve\n');
    throw new ExitRequest(1);
  }
  const answer = await askOnTerminal(io, `Delete API key ${describeKey(key)}? Anything using it stops working. Only 'yes' is accepted: `);
  if (answer === null) {
    io.stderr.write('\nInterrupted: the key was not deleted.\n');
    throw new ExitRequest(INTERRUPTED_EXIT);
  }
  if (answer.trim() !== 'yes') {
    io.stderr.write('Delete cancelled.\n');
    throw new ExitRequest(1);
  }
}

function listKeys(io: CliIO, keys: readonly WireApiKey[], output: 'text' | 'json'): void {
  if (output === 'json') {
    io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
    return;
  }
  if (keys.length === 0) {
    io.stderr.write('the organization has no API keys\n');
    return;
  }
  const rows = keys.map((k) => [
    k.id,
    k.name,
    k.state,
    rolesOf(k).join(',') || '-',
    k.keySuffix ? `…${k.keySuffix}` : '-',
    day(k.createdAt),
    k.expireAt ? day(k.expireAt) : 'never',
    k.usedAt ? day(k.usedAt) : 'never',
    (k.ipAccessList ?? []).map((e) => (e.source === '0.0.0.0/0' ? 'anywhere' : e.source)).join(',') || 'none',
  ]);
  io.stdout.write(formatTable(['ID', 'NAME', 'STATE', 'ROLES', 'KEY ID', 'CREATED', 'EXPIRES', 'LAST USED', 'ALLOWED FROM'], rows));
}

/** Role names: the assigned roles' names, else the legacy role list. */
function rolesOf(key: WireApiKey): string[] {
  const assigned = (key as { assignedRoles?: unknown }).assignedRoles;
  const names = Array.isArray(assigned)
    ? assigned.flatMap((r: unknown) => {
        const name = typeof r === 'object' && r !== null ? (r as { roleName?: unknown }).roleName : undefined;
        return typeof name === 'string' ? [name] : [];
      })
    : [];
  return names.length > 0 ? names : [...(key.roles ?? [])];
}

/** `2026-11-26 10:15 UTC` from an ISO time (minutes: the service keeps usedAt to the minute). */
function day(iso: string | undefined): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function registerCreate(keys: Command, io: CliIO): void {
  keys
    .command('create')
    .description('create an API key; its secret is shown once')
    .option('--target <name>', 'target (hosted)')
    .option('--config <file>', 'obsync.yaml to use')
    .requiredOption('--name <name>', 'key name')
    .option(
      '--role <role>',
      `role (repeatable): an organization role UUID, or a legacy role (${LEGACY_ROLES.join(', ')})`,
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .option('--expire-at <timestamp>', 'ISO-8601 expiry (default: never)')
    .option(
      '--ip <cidr[:description]>',
      'allowed source (repeatable); without any, every address is allowed',
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .addOption(new Option('--state <state>', 'initial state').choices(['enabled', 'disabled']).default('enabled'))
    .option('--out <file>', 'write {keyId, keySecret} to this new file (mode 0600; never overwritten)')
    .option('--timeout <seconds>', 'deadline of each request to the target', timeoutSeconds)
    .action(async (flags: KeysFlags) => {
      if (flags.role.length === 0)
        throw new ConfigError('give at least one --role', { hint: `an organization role UUID, or one of ${LEGACY_ROLES.join(', ')}` });
      if (flags.expireAt !== undefined && Number.isNaN(Date.parse(flags.expireAt)))
        throw new ConfigError(`--expire-at '${flags.expireAt}' is not an ISO-8601 timestamp`);
      const request: KeyCreateRequest = {
        name: flags.name,
        ...rolesRequest(flags.role),
        state: flags.state,
        ...(flags.expireAt ? { expireAt: new Date(flags.expireAt).toISOString() } : {}),
        ipAccessList: flags.ip.length > 0 ? flags.ip.map(parseIpEntry) : [ANYWHERE],
      };
      if (flags.ip.length === 0) io.stderr.write('note: without --ip the key is usable from any address (0.0.0.0/0)\n');
      // Refuse an existing --out file before the key exists, so a secret is never lost.
      const outPath = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
      if (outPath) reserveKeyFile(outPath);
      let created = false;
      try {
        const connection = await openConnection(io, {
          config: flags.config,
          target: flags.target,
          timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
        });
        try {
          const key = await requireCapability(connection.port, 'keys').create(request);
          created = true;
          io.stdout.write(JSON.stringify(key.key, null, 2) + '\n');
          const secret = { keyId: key.keyId, keySecret: key.keySecret };
          if (outPath) {
            // Over the empty file reserved above: whole, or that empty file stays (and the error names it).
            writeFileAtomically(outPath, JSON.stringify(secret, null, 2) + '\n', { mode: 0o600 });
            io.stderr.write(`the key id and secret were written to ${flags.out} (mode 0600); they cannot be shown again\n`);
          } else {
            io.stderr.write('warning: the secret is printed once below and cannot be shown again; prefer --out FILE\n');
            io.stdout.write(JSON.stringify(secret, null, 2) + '\n');
          }
        } finally {
          await connection.close();
        }
      } finally {
        // No key, no file: the empty placeholder would block the next attempt.
        if (outPath && !created) await rm(outPath, { force: true });
      }
    });
}

/** The --out file, created empty (0600) now; an existing file or a missing directory is refused before any key exists. */
function reserveKeyFile(path: string): void {
  try {
    writeFileAtomically(path, '', { existing: 'create', mode: 0o600 });
  } catch (err) {
    const code = err instanceof FileWriteError ? err.errno : undefined;
    if (code === 'EEXIST')
      throw new ConfigError(`--out ${path} already exists; no key was created`, {
        hint: 'keys create never overwrites a file (it may hold another key): give a new file name',
      });
    if (code === 'ENOENT') throw new ConfigError(`--out ${path}: its directory does not exist; no key was created`);
    const why = err instanceof FileWriteError ? err.reason : (code ?? 'error');
    throw new ConfigError(`--out ${path} cannot be created (${why}); no key was created`, { cause: err });
  }
}
