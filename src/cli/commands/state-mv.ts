/**
 * `obsync state mv OLD NEW` (Terraform's `state mv`): records a rename in the state of a target,
 * under its writer lease, without a request to the service. An object: `Kind/old Kind/new` (the
 * entry keeps its id, tile map, hashes and fingerprints). A tile key: `Dashboard/d/tiles/old
 * Dashboard/d/tiles/new` (the tile keeps its id, and the alerts on it). Refused, with nothing
 * written: an unknown source, an occupied destination, a change of kind or of dashboard.
 */
import { ConfigError, ObsyncError } from '../../core/errors.js';
import { moveRefusal, type InventoryStore } from '../../core/inventory.js';
import type { Address } from '../../core/plan.js';
import type { StateBackend } from '../../inventory/backend.js';
import { metadataName } from '../../kinds/envelope.js';
import { managedDefinition, parseAddress } from '../../kinds/registry.js';
import type { CliIO } from '../io.js';
import { ownValue, setOwn } from '../../core/json.js';

/** `Kind/name`, or `Kind/name/<parts>/<key>` for a keyed part (a dashboard's tile). */
interface StateAddress {
  address: Address;
  part?: { noun: string; key: string };
}

export function parseStateAddress(text: string): StateAddress {
  const [kindText = '', name = '', field, key, ...rest] = text.split('/');
  const parsed = parseAddress(`${kindText}/${name}`);
  const example = 'Kind/name (e.g. Dashboard/checkout), or Dashboard/name/tiles/key for a tile';
  if (!parsed || rest.length > 0 || (field !== undefined && key === undefined)) throw new ConfigError(`'${text}' is not ${example}`);
  if (!metadataName.safeParse(name).success)
    throw new ConfigError(`'${text}': '${name}' is not a metadata.name (lowercase letters, digits and "-")`);
  const address: Address = `${parsed.kind}/${parsed.name}`;
  if (field === undefined || key === undefined) return { address };
  const noun = managedDefinition(parsed.kind)?.parts?.noun;
  if (noun === undefined) throw new ConfigError(`'${text}': a ${parsed.kind} has no keyed parts; give Kind/name`);
  if (field !== `${noun}s` || key === '') throw new ConfigError(`'${text}' is not ${address}/${noun}s/<key>`);
  return { address, part: { noun, key } };
}

export async function moveState(io: CliIO, backend: StateBackend, target: string, fromText: string, toText: string): Promise<void> {
  const from = parseStateAddress(fromText);
  const to = parseStateAddress(toText);
  if ((from.part === undefined) !== (to.part === undefined))
    throw new ConfigError(`cannot move ${fromText} to ${toText}: move an object to an object, or a tile key to a tile key`);
  const inventory = await backend.openInventory(target, { mode: 'write', command: 'state mv' });
  try {
    if (from.part && to.part) await movePart(io, inventory, from, to, { from: from.part.key, to: to.part.key, noun: from.part.noun });
    else await moveObject(io, inventory, from.address, to.address);
  } finally {
    await inventory.close();
  }
}

async function moveObject(io: CliIO, inventory: InventoryStore, from: Address, to: Address): Promise<void> {
  const refusal = moveRefusal(inventory, from, to);
  if (refusal) throw refusal;
  const entry = await inventory.move(from, to, new Date().toISOString());
  io.stdout.write(
    `Moved ${from} to ${to} in target '${inventory.target}'${entry.id ? ` (id ${entry.id})` : ''}: obsync ` +
      `owns the same object under the new name; the object itself is untouched.\n`,
  );
  io.stderr.write(
    `note: the manifests must now declare ${to} (rename metadata.name); while they declare ${from} ` +
      `instead, the next plan creates it again\n`,
  );
}

async function movePart(
  io: CliIO,
  inventory: InventoryStore,
  from: StateAddress,
  to: StateAddress,
  keys: { from: string; to: string; noun: string },
): Promise<void> {
  const { noun } = keys;
  if (from.address !== to.address)
    throw new ObsyncError('STATE_MOVE', `cannot move a ${noun} from ${from.address} to ${to.address}: a ${noun} stays on its own object`, {
      hint: `rename the object with \`obsync state mv ${from.address} ${to.address}\`, or the ${noun} key within ${from.address}`,
    });
  const entry = inventory.get(from.address);
  if (!entry)
    throw new ObsyncError('STATE_MOVE', `${from.address} is not in the state of target '${inventory.target}': nothing to move`, {
      hint: '`obsync state list` shows what obsync owns',
    });
  const parts = entry.tiles ?? {};
  // Keys are data: only the map's own keys count (`tiles/constructor` is no tile).
  const id = ownValue(parts, keys.from);
  const occupant = ownValue(parts, keys.to);
  if (keys.from === keys.to)
    throw new ObsyncError('STATE_MOVE', `${noun} '${keys.from}' of ${from.address}: the same key, nothing to move`);
  if (id === undefined)
    throw new ObsyncError(
      'STATE_MOVE',
      `${from.address} has no ${noun} '${keys.from}' in the state of target '${inventory.target}' ` +
        `(recorded: ${Object.keys(parts).join(', ') || 'none'})`,
    );
  if (occupant !== undefined)
    throw new ObsyncError(
      'STATE_MOVE',
      `${from.address} already has a ${noun} '${keys.to}' (id ${occupant}): moving '${keys.from}' there would lose track of one of them`,
    );
  const renamed: Record<string, string> = {};
  for (const [key, partId] of Object.entries(parts)) setOwn(renamed, key === keys.from ? keys.to : key, partId);
  await inventory.put({ ...entry, tiles: renamed, updatedAt: new Date().toISOString() });
  io.stdout.write(
    `Moved ${noun} '${keys.from}' of ${from.address} to '${keys.to}' in target '${inventory.target}' ` +
      `(${noun} id ${id}): it keeps its id and what hangs on it.\n`,
  );
  io.stderr.write(`note: the manifest of ${from.address} must now give that ${noun} key: ${keys.to}\n`);
}
