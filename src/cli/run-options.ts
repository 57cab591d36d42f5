/** Flags shared by plan, apply and run, and their parsing into engine settings. */
import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError } from '../core/errors.js';
import type { Address } from '../core/plan.js';
import type { Selection } from '../engine/selection.js';
import { metadataName } from '../kinds/envelope.js';
import { KINDS, parseAddress } from '../kinds/registry.js';

export interface RawRunOptions {
  target?: string;
  config?: string;
  prune?: boolean;
  pruneCascade?: boolean;
  maxDeletes?: number;
  selector: string[];
  only: string[];
  color?: boolean;
}

export interface RunOptions {
  selection: Selection;
  prune?: boolean;
  pruneCascade?: boolean;
  maxDeletes?: number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

export function commonRunOptions(cmd: Command): Command {
  return cmd
    .option('--target <name>', 'target from obsync.yaml (default: defaults.target, the only target, or the embedded sandbox)')
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml, or one in the single PATH given)')
    .option('--prune', 'delete owned objects that are no longer declared (with every safety guard)')
    .option(
      '--prune-cascade',
      'let a delete (or an update that drops a tile) go ahead even when the service would take along objects obsync does not own, such as a hand-made alert on a pruned dashboard; they are backed up first and counted against --max-deletes',
    )
    .option('--max-deletes <n>', 'refuse to prune more than this many objects (with what the service deletes along)', nonNegativeInt)
    .option('--selector <k=v>', 'only objects with this label (repeatable)', collect, [])
    .option('--only <Kind/name>', 'only this object (repeatable)', collect, [])
    .option('--no-color', 'no colour in the output');
}


export function parseRunOptions(raw: RawRunOptions): RunOptions {
  const labels: Record<string, string> = {};
  for (const s of raw.selector) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--selector '${s}' is not of the form key=value`);
    labels[s.slice(0, eq)] = s.slice(eq + 1);
  }
  for (const a of raw.only) if (!isAddress(a)) throw new ConfigError(`--only '${a}' is not an address like Dashboard/checkout (kinds: ${KINDS.join(', ')})`);
  return {
    selection: { labels, only: raw.only as Address[] },
    ...(raw.prune !== undefined ? { prune: raw.prune } : {}),
    ...(raw.pruneCascade !== undefined ? { pruneCascade: raw.pruneCascade } : {}),
    ...(raw.maxDeletes !== undefined ? { maxDeletes: raw.maxDeletes } : {}),
  };
}

function isAddress(value: string): boolean {
  const parsed = parseAddress(value);
  return parsed !== null && metadataName.safeParse(parsed.name).success;
}
