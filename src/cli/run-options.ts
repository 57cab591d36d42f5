/** Flags shared by plan, apply and run, and their parsing into engine settings. */
import type { Command } from 'commander';
import { ConfigError } from '../core/errors.js';
import type { Address, Plan } from '../core/plan.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { DesiredResource } from '../core/resource.js';
import { isNarrowed, pruneEligibility, selectedAddresses, type Selection } from '../engine/selection.js';
import type { CliIO } from './io.js';
import { timeoutSeconds, wholeNumber } from './numbers.js';

export interface RawRunOptions {
  /** --target, repeatable. */
  target: string[];
  config?: string;
  prune?: boolean;
  maxDeletes?: number;
  timeout?: number;
  selector: string[];
  only: string[];
  color?: boolean;
  allowFileOutside?: boolean;
}

export interface RunOptions {
  selection: Selection;
  prune?: boolean;
  maxDeletes?: number;
  /** Deadline of each request to the target (--timeout). */
  timeoutMs?: number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}


export function commonRunOptions(cmd: Command): Command {
  return cmd
    .option('--target <name>', 'target from obsync.yaml (repeatable; default: defaults.target, else every declared target, else the embedded sandbox)', collect, [])
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml, or one in the single PATH given)')
    .option('--prune', 'delete owned objects that are no longer declared (with every safety guard)')
    .option('--max-deletes <n>', 'refuse to prune more than this many objects', wholeNumber(0))
    .option('--timeout <seconds>', 'deadline of each request to the target (default: the target\'s timeoutSeconds, else 30)', timeoutSeconds)
    .option('--selector <k=v>', 'only objects with this label (repeatable)', collect, [])
    .option('--only <Kind/name>', 'only this object (repeatable)', collect, [])
    .option('--allow-file-outside', '${file:} in manifests may read files outside the directory of obsync.yaml (default: confined to it)');
}

const ADDRESS = /^(Dashboard|Alert|Pipe)\/[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function parseRunOptions(raw: RawRunOptions): RunOptions {
  const labels: Record<string, string> = {};
  for (const s of raw.selector) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--selector '${s}' is not of the form key=value`);
    labels[s.slice(0, eq)] = s.slice(eq + 1);
  }
  for (const a of raw.only) if (!ADDRESS.test(a)) throw new ConfigError(`--only '${a}' is not an address like Dashboard/checkout (kinds: Dashboard, Alert, Pipe)`);
  return {
    selection: { labels, only: raw.only as Address[] },
    ...(raw.prune !== undefined ? { prune: raw.prune } : {}),
    ...(raw.maxDeletes !== undefined ? { maxDeletes: raw.maxDeletes } : {}),
    ...(raw.timeout !== undefined ? { timeoutMs: raw.timeout * 1000 } : {}),
  };
}

/** How the user wrote the selection, for messages: `--only Dashboard/x --selector team=a`. */
function describeSelection(sel: Selection): string {
  return [...sel.only.map((a) => `--only ${a}`), ...Object.entries(sel.labels).map(([k, v]) => `--selector ${k}=${v}`)].join(' ');
}

/**
 * `--only` / `--selector` that match no declared and no owned object are a mistake (a typo, a
 * wrong label), not an empty run: refused before anything is read or written.
 */
export function checkSelectionMatches(sel: Selection, desired: readonly DesiredResource[], owned: readonly InventoryEntry[]): void {
  if (!isNarrowed(sel)) return;
  if ((selectedAddresses(desired, sel)?.size ?? 0) > 0 || owned.some(pruneEligibility(sel))) return;
  throw new ConfigError(`${describeSelection(sel)} matches no declared or owned object`, {
    hint: `declared: ${desired.length === 0 ? 'none' : desired.slice(0, 5).map((r) => r.address).join(', ') + (desired.length > 5 ? ', …' : '')}; --selector matches metadata.labels`,
  });
}

/** A prune asked for and refused by a guard is an error (Terraform's habit): the plan is printed, then exit 1. */
export function refusedPrune(io: CliIO, plan: Plan, output: string): boolean {
  if (plan.prune.refused.length === 0) return false;
  // The text plan already lists the reasons; the other formats carry them in their data.
  if (output !== 'text') io.stderr.write(`error: prune refused: ${plan.prune.refused.join('; ')}\n`);
  return true;
}
