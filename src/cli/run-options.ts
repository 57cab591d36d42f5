/** Flags shared by plan, apply and run, and their parsing into engine settings. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError } from '../core/errors.js';
import type { Address, Kind, Plan } from '../core/plan.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { DesiredResource } from '../core/resource.js';
import { isNarrowed, pruneEligibility, selectedAddresses, type Selection } from '../engine/selection.js';
import { metadataName } from '../kinds/envelope.js';
import { KINDS, parseAddress } from '../kinds/registry.js';
import type { CliIO } from './io.js';
import { timeoutSeconds, wholeNumber } from './numbers.js';
import { setOwn } from '../core/json.js';
import { backtestWindow, type BacktestWindow } from './backtest-options.js';

export interface RawRunOptions {
  /** --target, repeatable. */
  target: string[];
  config?: string;
  prune?: boolean;
  pruneCascade?: boolean;
  maxDeletes?: number;
  timeout?: number;
  selector: string[];
  only: string[];
  color?: boolean;
  allowFileOutside?: boolean;
  /** --allow-empty-kind, repeatable (plan and apply). */
  allowEmptyKind?: string[];
  /** `--backtest DURATION` (a string), `--no-backtest` (false). */
  backtest?: string | false;
  backtestBudget?: number;
}

export interface RunOptions {
  selection: Selection;
  prune?: boolean;
  pruneCascade?: boolean;
  maxDeletes?: number;
  /** Kinds whose last owned objects prune may delete (--allow-empty-kind). */
  allowEmptyKinds?: Kind[];
  /** Deadline of each request to the target (--timeout). */
  timeoutMs?: number;
  /** `--backtest` / `--no-backtest`; absent: obsync.yaml, else the command's default. */
  backtest?: BacktestWindow | false;
  backtestBudget?: number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function commonRunOptions(cmd: Command): Command {
  return cmd
    .option(
      '--target <name>',
      'target from obsync.yaml (repeatable; default: defaults.target, else every declared target, else the embedded sandbox)',
      collect,
      [],
    )
    .option('--config <file>', 'obsync.yaml to use (default: ./obsync.yaml, or one in the single PATH given)')
    .option('--prune', 'delete owned objects that are no longer declared (with every safety guard)')
    .option(
      '--prune-cascade',
      'let a delete (or an update that drops a tile) go ahead even when the service would take along ' +
        'objects obsync does not own, such as a hand-made alert on a pruned dashboard; they are backed up ' +
        'first and counted against --max-deletes',
    )
    .option('--max-deletes <n>', 'refuse to prune more than this many objects (with what the service deletes along)', wholeNumber(0))
    .option('--timeout <seconds>', "deadline of each request to the target (default: the target's timeoutSeconds, else 30)", timeoutSeconds)
    .option('--selector <k=v>', 'only objects with this label (repeatable)', collect, [])
    .option('--only <Kind/name>', 'only this object (repeatable)', collect, [])
    .option('--allow-file-outside', '${file:} in manifests may read files outside the directory of obsync.yaml (default: confined to it)')
    .option(
      '--backtest <duration>',
      "backtest created and updated alerts over this much of the service's data, e.g. 1d or 7d (plan and " +
        'apply default: defaults.backtest, else 7d; run: off unless set)',
    )
    .option('--no-backtest', 'no backtests')
    .option(
      '--backtest-budget <n>',
      'series requests one plan may make for backtests (default: defaults.backtest.budget, else 20)',
      wholeNumber(0, 1000),
    );
}

/** `--allow-empty-kind KIND` (plan, apply): the explicit confirmation that prune may delete the last objects of a kind. */
export function allowEmptyKindOption(cmd: Command): Command {
  return cmd.addOption(
    new Option(
      '--allow-empty-kind <kind>',
      'with --prune: also delete the last owned objects of this kind when no manifest declares one any more ' +
        '(repeatable; without it such a prune is refused, in case a manifest path came up empty)',
    )
      .choices(KINDS)
      .argParser((value: string, previous: string[] | undefined) => {
        if (!(KINDS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${KINDS.join(', ')}`);
        return [...(previous ?? []), value];
      }),
  );
}

export function parseRunOptions(raw: RawRunOptions): RunOptions {
  const labels: Record<string, string> = {};
  for (const s of raw.selector) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--selector '${s}' is not of the form key=value`);
    setOwn(labels, s.slice(0, eq), s.slice(eq + 1));
  }
  for (const a of raw.only)
    if (!isAddress(a)) throw new ConfigError(`--only '${a}' is not an address like Dashboard/checkout (kinds: ${KINDS.join(', ')})`);
  return {
    selection: { labels, only: raw.only as Address[] },
    ...(raw.prune !== undefined ? { prune: raw.prune } : {}),
    ...(raw.pruneCascade !== undefined ? { pruneCascade: raw.pruneCascade } : {}),
    ...(raw.maxDeletes !== undefined ? { maxDeletes: raw.maxDeletes } : {}),
    ...(raw.allowEmptyKind && raw.allowEmptyKind.length > 0 ? { allowEmptyKinds: [...new Set(raw.allowEmptyKind)] as Kind[] } : {}),
    ...(raw.timeout !== undefined ? { timeoutMs: raw.timeout * 1000 } : {}),
    ...(raw.backtest !== undefined ? { backtest: raw.backtest === false ? false : backtestWindow(raw.backtest) } : {}),
    ...(raw.backtestBudget !== undefined ? { backtestBudget: raw.backtestBudget } : {}),
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
    hint: `declared: ${
      desired.length === 0
        ? 'none'
        : desired
            .slice(0, 5)
            .map((r) => r.address)
            .join(', ') + (desired.length > 5 ? ', …' : '')
    }; --selector matches metadata.labels`,
  });
}

/**
 * A prune asked for and refused by a guard, or a delete kept back because the service would take
 * along objects obsync must not delete, is an error (Terraform's habit): the plan is printed,
 * then exit 1.
 */
export function refusedPrune(io: CliIO, plan: Plan, output: string): boolean {
  const reasons = [...plan.prune.refused, ...plan.prune.blocked.map((b) => `${b.address}: ${b.reason}`)];
  if (reasons.length === 0) return false;
  // The text plan already lists the reasons; the other formats carry them in their data.
  if (output !== 'text') io.stderr.write(`error: prune refused: ${reasons.join('; ')}\n`);
  return true;
}

function isAddress(value: string): boolean {
  const parsed = parseAddress(value);
  return parsed !== null && metadataName.safeParse(parsed.name).success;
}
