/** `obsync keys create`: the request from the flags (roles, allowed addresses), and the --out file reserved before the key exists. */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { requireCapability, type KeyCreateRequest } from '../../core/ports.js';
import { FileWriteError, writeFileAtomically } from '../../manifests/atomic-write.js';
import type { CliIO } from '../io.js';
import { timeoutSeconds } from '../numbers.js';
import { openConnection } from '../connection.js';

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

export function registerCreate(keys: Command, io: CliIO): void {
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
