/**
 * A backtest and an impact in words, shared by the text and markdown plans (and the daemon's
 * logs carry the same objects): `backtest 7d: would have fired in 12 of 2016 windows, 3
 * episodes, last 2026-11-24 03:10 UTC; would have notified 28 times, 24 of them from group
 * ServiceName:checkout, and resolved 3 times; 2 of 3 episodes flapped (under 3 windows)`; for an
 * update, before → after.
 */
import type { Backtest, BacktestRun, BacktestSide, Impact, ImpactItem } from '../core/backtest.js';
import { FLAP_WINDOWS } from '../kinds/alert/backtest-counts.js';
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
  const sent = notificationsClause(b, before?.status === 'ok' ? before : undefined);
  return `backtest ${b.window}: ${counts}${last}${sent}${topGroupsClause(b)}${suggestionClause(b)}${beforeNote}${note}`;
}

/**
 * `; would have notified 28 times, 24 of them from group ServiceName:checkout, and resolved 3 times; 2 of 5
 * episodes flapped (under 3 windows)`; with a before, `4 → 28 times`. Absent from a backtest saved before they were counted.
 */
function notificationsClause(after: BacktestSide, before: BacktestSide | undefined): string {
  if (after.notifications === undefined) return '';
  // Nothing sent, before or after: "would have fired in 0 of 2016 windows" says it all.
  const silent = (side: BacktestSide | undefined) => !side || (!side.notifications && !side.resolutions);
  if (silent(after) && silent(before)) return '';
  const times = (v: number | undefined) => `${n(v)} time${v === 1 ? '' : 's'}`;
  const sent =
    before?.notifications !== undefined ? `${n(before.notifications)} → ${times(after.notifications)}` : times(after.notifications);
  const top = after.topGroups?.[0];
  // A group is the service's data: shown, never obeyed.
  const from = top && top.notifications > 0 ? `, ${top.notifications} of them from group ${printable(top.group || '(none)')}` : '';
  const resolutions = times(after.resolutions);
  const resolved = before?.resolutions !== undefined ? `${n(before.resolutions)} → ${resolutions}` : resolutions;
  const flapped = after.flapping
    ? `; ${after.flapping} of ${n(after.episodes)} episode${after.episodes === 1 ? '' : 's'} flapped (under ${FLAP_WINDOWS} windows)`
    : '';
  return `; would have notified ${sent}${from}, and resolved ${resolved}${flapped}`;
}

/**
 * `; over the budget of 3 episodes per 7d: threshold 42 would have kept it within (2 episodes, 6
 * notifications) — a suggestion, not applied`.
 */
function suggestionClause(b: BacktestSide): string {
  const s = b.suggestion;
  if (!s) return '';
  const per = `${s.budget.episodes} episode${s.budget.episodes === 1 ? '' : 's'} per ${s.budget.per}`;
  return (
    `; over the budget of ${per}: threshold ${s.threshold} would have kept it within (${s.episodes} ` +
    `episode${s.episodes === 1 ? '' : 's'}, ${s.notifications} ` +
    `notification${s.notifications === 1 ? '' : 's'}) — a suggestion, not applied`
  );
}

/** With more than one: `; top groups by notifications: ServiceName:checkout 24 (3 resolved), ServiceName:api 4 (1 resolved)`. */
function topGroupsClause(b: BacktestSide): string {
  const groups = b.topGroups ?? [];
  if (groups.length < 2) return '';
  return (
    `; top groups by notifications: ` +
    `${groups.map((g) => `${printable(g.group || '(none)')} ${g.notifications} (${g.resolutions} resolved)`).join(', ')}`
  );
}

/** The table cell: the counts only. */
export function backtestCell(b: Backtest): string {
  if (b.status !== 'ok') return `${b.status}: ${printable(b.reason ?? '')}`;
  const before = b.before;
  const sent =
    b.notifications === undefined
      ? ''
      : `${before?.status === 'ok' && before.notifications !== undefined ? `${before.notifications} → ` : ''}${b.notifications} ` +
        `notification(s): `;
  if (before?.status === 'ok')
    return `${sent}${n(before.episodes)} → ${n(b.episodes)} episodes (${windowsCompared(before, b)} windows firing)`;
  return `${sent}${n(b.episodes)} episode(s), ${n(b.firing)} of ${n(b.evaluated)} windows firing`;
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
  return (
    `Backtest ${run.window}: ${run.alerts} alert(s), ` + `${run.requests} series request(s) of a budget of ${run.budget}${dedup}${skipped}.`
  );
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
