/**
 * An alert change in words for reviewers: `threshold 500 → 400`, `interval 5m → 1m`,
 * `channel ops-slack → oncall`. Reads the comparable form of ./definition.ts.
 */
import type { Json } from '../../core/wire.js';
import { isRecord, leafChanges, shortValue, tokenText, type Summariser } from '../summary.js';

type Obj = { [key: string]: Json };

/** Fields said in words, in this order; the others are listed as changed. */
const WORDED: readonly (readonly [string, string])[] = [
  ['threshold', 'threshold'],
  ['thresholdMax', 'upper threshold'],
  ['thresholdType', 'condition'],
  ['interval', 'interval'],
  ['numConsecutiveWindows', 'consecutive windows'],
  ['name', 'name'],
  ['groupBy', 'group by'],
  ['scheduleOffsetMinutes', 'schedule offset (minutes)'],
  ['scheduleStartAt', 'schedule start'],
];
const SAID = new Set([
  'threshold',
  'thresholdMax',
  'thresholdType',
  'interval',
  'numConsecutiveWindows',
  'name',
  'groupBy',
  'scheduleOffsetMinutes',
  'scheduleStartAt',
  'channels',
  'dashboard',
  'tile',
  'savedSearch',
  'message',
  'note',
]);

export const summariseAlert: Summariser = (before, after) => {
  const b = isRecord(before) ? before : null;
  const a = isRecord(after) ? after : null;
  if (!b && a) return { sentences: [`new alert: ${condition(a)} ${on(a)}, notifying ${channels(a)}`] };
  if (b && !a) return { sentences: [`alert ${shortValue(b.name ?? null)} deleted (${condition(b)} ${on(b)})`] };
  if (!b || !a) return { sentences: [] };
  const out: string[] = [];
  for (const [field, words] of WORDED)
    if (JSON.stringify(b[field]) !== JSON.stringify(a[field]))
      out.push(`${words} ${shortValue(b[field] ?? null)} → ${shortValue(a[field] ?? null)}`);
  if (channels(b) !== channels(a)) out.push(`${channelWord(b, a)} ${channels(b)} → ${channels(a)}`);
  if (on(b) !== on(a)) out.push(`moved: ${on(b)} → ${on(a)}`);
  for (const field of ['message', 'note']) if (JSON.stringify(b[field]) !== JSON.stringify(a[field])) out.push(`${field} changed`);
  const others = [...new Set(leafChanges(b, a).map((c) => c.path.split(/[.[]/)[0] ?? ''))].filter((f) => !SAID.has(f));
  if (others.length > 0) out.push(`also changed: ${others.join(', ')}`);
  return { sentences: out };
};

function condition(o: Obj): string {
  const range = o.thresholdMax !== undefined ? `${shortValue(o.threshold)}–${shortValue(o.thresholdMax)}` : shortValue(o.threshold);
  return `${shortValue(o.thresholdType)} ${range} every ${shortValue(o.interval)}`;
}

function on(o: Obj): string {
  if (o.savedSearch !== undefined) return `on saved search ${tokenText(o.savedSearch)}`;
  if (isRecord(o.chart)) return `on its own ${shortValue(o.chart.displayType ?? null)} chart`;
  return `on dashboard ${tokenText(o.dashboard)} tile ${tokenText(o.tile)}`;
}

function channels(o: Obj): string {
  const list = Array.isArray(o.channels) ? o.channels : [];
  const names = list.map((c) => (isRecord(c) ? tokenText(c.webhook) : shortValue(c)));
  return names.length === 0 ? '(no channel)' : names.join(', ');
}

function channelWord(b: Obj, a: Obj): string {
  const count = (o: Obj) => (Array.isArray(o.channels) ? o.channels.length : 0);
  return count(b) > 1 || count(a) > 1 ? 'channels' : 'channel';
}
