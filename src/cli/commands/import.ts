/**
 * `obsync import Kind/name ID`: adopt one live object by its server id (Terraform's import). A
 * manifest must declare Kind/name; the next plan compares it with the object as with any owned one.
 */
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import type { CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';

interface ImportFlags {
  config?: string;
  target?: string;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  program
    .command('import')
    .description('adopt one live object by id: obsync owns it under Kind/name (a manifest must declare it)')
    .argument('<address>', 'Kind/name of the manifest that declares the object, e.g. Dashboard/checkout')
    .argument('<id>', "the object's server id")
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml)')
    .option('--target <name>', 'target (default: defaults.target or the only target)')
    .action((address: string, id: string, flags: ImportFlags) => importCommand(io, address, id, flags));
};

async function importCommand(io: CliIO, address: string, id: string, flags: ImportFlags): Promise<void> {
  const { parseAddress, managedDefinition, REGISTRY } = await import('../../kinds/registry.js');
  const parsed = parseAddress(address);
  const def = parsed ? managedDefinition(parsed.kind) : undefined;
  if (!parsed || !def) throw new ConfigError(`'${address}' is not Kind/name (e.g. Dashboard/checkout)`);
  const { openSession } = await import('../session.js');
  const session = await openSession(io, {
    paths: [],
    config: flags.config,
    targets: flags.target ? [flags.target] : undefined,
    lock: true,
    command: 'import',
    allowMissingEnv: true,
  });
  try {
    if (session.port.collection(def.kind) === null)
      throw new ConfigError(`the target '${session.port.target}' (${session.port.variant}) has no ${def.noun}s`);
    const { readLive } = await import('../../engine/live.js');
    const served = REGISTRY.filter((d) => session.port.collection(d.kind) !== null);
    const live = await readLive(session.port, served);
    const unread = live.unread?.(def.kind);
    if (unread !== undefined) throw new ConfigError(`${def.noun} ${id} not imported: ${unread}`);
    const { importEntry } = await import('../../export/import.js');
    const key = `${def.kind}/${parsed.name}`;
    const outcome = importEntry({
      def,
      name: parsed.name,
      id,
      objects: (k) => live.objects(k),
      served: served.map((d) => d.kind),
      entries: session.inventory.entries(),
      declared: session.desired.some((r) => r.address === key),
      elsewhere: await session.ownersElsewhere(),
      now: new Date(),
    });
    if (outcome.already) {
      io.stdout.write(`${key} is already owned with id ${id} in target '${session.port.target}': nothing to do.\n`);
      return;
    }
    await session.inventory.put(outcome.entry);
    session.events.emit(session.port.target, { event: 'imported', address: `${def.kind}/${parsed.name}`, id, via: 'import' });
    io.stdout.write(
      `Imported ${key} (id ${id}) in target '${session.port.target}': obsync owns it now. Nothing was written to the service.\n`,
    );
    io.stderr.write('next: `obsync plan` shows what the manifest changes on it\n');
  } finally {
    await session.close();
  }
}
