/**
 * `obsync keys create|list|disable|enable|delete` (hosted): the organization's API keys, for
 * rotating the one obsync uses. `create` puts the secret in --out (0600, never overwritten) or
 * prints it once; `list` never shows a secret (the service never returns one); a key is named by
 * its id or by its name when that is unique; `delete` asks first (or needs --auto-approve).
 */
import { Option, type Command } from 'commander';
import { ApiError, ConfigError } from '../../core/errors.js';
import { requireCapability, type KeysPort } from '../../core/ports.js';
import type { WireApiKey } from '../../core/wire.js';
import { INTERRUPTED_EXIT } from '../interrupt.js';
import { ExitRequest, type CliIO } from '../io.js';
import { askOnTerminal } from '../prompt.js';
import { timeoutSeconds } from '../numbers.js';
import type { CommandRegistrar } from '../registrar.js';
import { openConnection } from '../connection.js';
import { registerCreate } from './keys-create.js';
import { listKeys } from './keys-list.js';

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
      hint:
        'point the target at another key first (OBSYNC_KEY_ID and OBSYNC_KEY_SECRET, or credentials in ' +
        'obsync.yaml), then run this again',
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
