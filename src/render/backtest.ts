/**
 * A backtest and an impact in words, shared by the text and markdown plans (and the daemon's
 * logs carry the same objects): `backtest 7d: would have fired in 12 of 2016 windows, 3
 * episodes, last 2026-11-24 03:10 UTC`; for an update, before → after.
 */
import type { Backtest, BacktestRun, BacktestSide, Impact, ImpactItem } from '../core/backtest.js';
import { printable } from '../core/printable.js';

/** The sentence under an alert. */
export function backtestSentence(b: Backtest): string {
  // A reason may quote a server's error body: shown, never obeyed.
  if (b.status !== 'ok')
    return `backtest ${b.status === 'skipped' ? 'skipped' : 'unavailable'}: ${printable(b.reason ?? 'no reason given')}`;
  const before = b.before;
  const counts = before?.status === 'ok' ? compared(before, b) : single(b);
  const last = b.lastFiringAt ? `, last ${utcMinute(b.lastFiringAt)}` : '';
  const beforeNote =
    before && before.status !== 'ok' ? `; before: ${before.status} (${printable(before.reason ?? 'no reason given')})` : '';
  const note = b.reason ? `; ${b.reason}` : '';
  return `backtest ${b.window}: ${counts}${last}${beforeNote}${note}`;
}

/** The table cell: the counts only. */
export function backtestCell(b: Backtest): string {
  if (b.status !== 'ok') return `${b.status}: ${printable(b.reason ?? '')}`;
  const before = b.before;
  if (before?.status === 'ok') return `${n(before.episodes)} → ${n(b.episodes)} episodes (${windowsCompared(before, b)} windows firing)`;
  return `${n(b.episodes)} episode(s), ${n(b.firing)} of ${n(b.evaluated)} windows firing`;
}

function single(b: BacktestSide): string {
  const groups = b.groups !== undefined ? ` (${b.groups} group${b.groups === 1 ? '' : 's'})` : '';
  return `would have fired in ${n(b.firing)} of ${n(b.evaluated)} windows, ${n(b.episodes)} episode${b.episodes === 1 ? '' : 's'}${groups}`;
}

function compared(before: BacktestSide, after: BacktestSide): string {
  return `would have fired in ${windowsCompared(before, after)} windows, ${n(before.episodes)} → ${n(after.episodes)} episodes`;
}

/** `4 → 12 of 2016`, or `4 of 2016 → 12 of 672` when the interval changes. */
function windowsCompared(before: BacktestSide, after: BacktestSide): string {
  if (before.evaluated === after.evaluated) return `${n(before.firing)} → ${n(after.firing)} of ${n(after.evaluated)}`;
  return `${n(before.firing)} of ${n(before.evaluated)} → ${n(after.firing)} of ${n(after.evaluated)}`;
}

function n(value: number | undefined): string {
  return String(value ?? 0);
}

/** `2026-11-24 03:10 UTC`. */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The plan's backtests as a whole, when any alert was backtested. */
export function backtestRunSentence(run: BacktestRun): string | null {
  if (run.alerts === 0) return null;
  if (run.unavailable) return `Backtest: ${run.unavailable}.`;
  const dedup = run.deduplicated > 0 ? ` (${run.deduplicated} identical quer${run.deduplicated === 1 ? 'y' : 'ies'} made once)` : '';
  const skipped = run.skipped > 0 ? `; ${run.skipped} alert(s) skipped (budget or cap: raise --backtest-budget or defaults.backtest)` : '';
  return `Backtest ${run.window}: ${run.alerts} alert(s), ${run.requests} series request(s) of a budget of ${run.budget}${dedup}${skipped}.`;
}

/** An object named as cascades are: its address, or kind, name and id; whose it is. */
export function impactObject(item: ImpactItem): string {
  // A name from the service is shown, never obeyed (escape sequences, bidi overrides).
  const named = item.address ?? `${item.kind}${item.name ? ` '${printable(item.name)}'` : ''}`;
  const id = item.id !== undefined ? `id ${item.id}` : 'created by this plan';
  const whose = item.owned ? '' : ', NOT owned by obsync';
  return item.address && item.owned ? named : `${named} (${id}${whose})`;
}

/** `tile p99: query changed; 2 alert(s) on it`. */
export function impactHeadline(impact: Impact): string {
  const count = impact.objects.length;
  switch (impact.kind) {
    case 'tile-alerts':
      return `${impact.what}; ${count} alert(s) on it`;
    case 'search-alerts':
      return `${impact.what}; ${count} alert(s) on this saved search`;
    case 'readers':
      return `${impact.what}; read by ${count} object(s)`;
    case 'webhook-users':
      return `${impact.what}; ${count} alert(s)`;
  }
}
