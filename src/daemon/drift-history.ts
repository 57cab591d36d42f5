/**
 * Learned suggestions of ignore rules (issue 48 item 2): a field of an object that drifts again
 * and again (by default 3 times in 30 days) is one the people at the screen own. The daemon says
 * so — an `ignore-suggested` event (a notification) and the target's status, with the lines to add
 * — and never adds a rule itself.
 *
 * What counts: a run whose plan finds the object changed on the service (`drifted`) at the field,
 * once per run and rule (two tiles moved in one edit are one drift of `tiles[*].x`). A drift that
 * is not put back (plan mode, `drift: report | propose`) is seen again by every run until it goes:
 * it counts once, not once per run. A pair is suggested once, while it keeps drifting that often;
 * it is dropped when the plan shows the field ignored by a rule, or when its drifts fall below the
 * threshold within the window (then it may be suggested again later).
 *
 * Kept in the target's state as the note `drift-history` (file: notes/<target>/drift-history.json;
 * PostgreSQL: the notes table), read before and written after each run's count (./kept-drift-history.ts):
 * a restart, or another replica taking the target over, carries on the count.
 */
import * as z from 'zod';
import { parseIgnorePath, ruleCovers } from '../core/ignore.js';
import type { Address, Kind, Plan } from '../core/plan.js';
import type { IgnoreSuggestionSettings } from '../config/field-rules.js';
import type { RunReport } from '../engine/reconcile.js';
import type { EventBody, EventOf } from '../events/vocabulary.js';
import { suggestedIgnoreRule } from './ignore-suggestion.js';
import { splitPath } from '../planner/diff.js';
import { KINDS } from '../kinds/registry.js';

/** One (object, rule) the daemon has seen drift. */
interface Seen {
  address: Address;
  kind: Kind;
  rule: string;
  /** When runs saw it drift, oldest first, within the window. */
  times: Date[];
  suggested: boolean;
}

/** A suggestion as the status shows it: the event's fields, and when the counted drifts were seen first and last. */
export type IgnoreSuggestion = Omit<EventOf<'ignore-suggested'>, 'seq' | 'time' | 'target' | 'event'> & { since: string; last: string };

/** The event of a suggestion (what the status adds is left out). */
export function suggestionEvent(s: IgnoreSuggestion): EventBody {
  const { since: _since, last: _last, ...body } = s;
  return { event: 'ignore-suggested', ...body };
}

/** The history as the state keeps it (version 1). */
export const driftHistoryNote = z.object({
  version: z.literal(1),
  seen: z.array(
    z.object({
      address: z.string().regex(/^[A-Za-z]+\/.+$/),
      kind: z.enum(KINDS),
      rule: z.string().min(1),
      times: z.array(z.iso.datetime()),
      suggested: z.boolean(),
    }),
  ),
  notPutBack: z.array(z.string()),
});
export type DriftHistoryNote = z.infer<typeof driftHistoryNote>;

export class DriftHistory {
  readonly #seen = new Map<string, Seen>();
  /** Pairs the last run found drifted and did not put back: the same drift if seen again. */
  #notPutBack = new Set<string>();

  constructor(
    private readonly target: string,
    private readonly settings: IgnoreSuggestionSettings,
    private readonly now: () => Date,
  ) {}

  /** One run's plan: records its drifts, and returns the suggestions this run makes (each pair once). */
  record(report: Pick<RunReport, 'mode' | 'plan' | 'held'>): IgnoreSuggestion[] {
    const now = this.now();
    const held = new Set<string>(report.mode === 'plan' ? report.plan.steps.map((s) => s.address) : (report.held ?? []));
    const notPutBack = new Set<string>();
    for (const { address, kind, rule } of drifts(report.plan)) {
      const key = `${address} ${rule}`;
      if (held.has(address)) notPutBack.add(key);
      if (this.#notPutBack.has(key)) continue;
      const seen = this.#seen.get(key) ?? { address, kind, rule, times: [], suggested: false };
      seen.times.push(now);
      this.#seen.set(key, seen);
    }
    this.#notPutBack = notPutBack;
    this.#forgetIgnored(report.plan);
    const out: IgnoreSuggestion[] = [];
    for (const [key, seen] of this.#seen) {
      seen.times = seen.times.filter((t) => now.getTime() - t.getTime() < this.settings.withinMs);
      if (seen.times.length === 0) {
        this.#seen.delete(key);
        continue;
      }
      const due = seen.times.length >= this.settings.after;
      if (due && !seen.suggested) out.push(this.#suggestion(seen));
      seen.suggested = due;
    }
    return out;
  }

  /** What the state keeps of the history. */
  toNote(): DriftHistoryNote {
    const seen = [...this.#seen.values()].map((s) => ({ ...s, times: s.times.map((t) => t.toISOString()) }));
    return { version: 1, seen, notPutBack: [...this.#notPutBack] };
  }

  /** Takes the history the state kept (replacing this process's own: the state's is the latest of every replica). */
  restore(note: DriftHistoryNote): void {
    this.#seen.clear();
    for (const s of note.seen)
      this.#seen.set(`${s.address} ${s.rule}`, { ...s, address: s.address as Address, times: s.times.map((t) => new Date(t)) });
    this.#notPutBack = new Set(note.notPutBack);
  }

  /** The open suggestions (the target's status), oldest first. */
  open(): IgnoreSuggestion[] {
    return [...this.#seen.values()].filter((s) => s.suggested).map((s) => this.#suggestion(s));
  }

  /** A pair whose field the plan shows as ignored has its rule now. */
  #forgetIgnored(plan: Plan): void {
    for (const step of plan.steps)
      for (const change of step.ignored ?? [])
        for (const [key, seen] of this.#seen) {
          const parsed = parseIgnorePath(seen.rule);
          if (seen.address === step.address && 'segments' in parsed && ruleCovers(parsed.segments, splitPath(change.path)))
            this.#seen.delete(key);
        }
  }

  #suggestion(seen: Seen): IgnoreSuggestion {
    const first = seen.times[0] ?? this.now();
    const last = seen.times.at(-1) ?? first;
    return {
      address: seen.address,
      path: seen.rule,
      times: seen.times.length,
      withinDays: Math.round(this.settings.withinMs / 86_400_000),
      lines: ruleLines(this.target, seen.kind, seen.rule),
      since: first.toISOString(),
      last: last.toISOString(),
    };
  }
}

/** The rules a plan's drifted objects suggest, once per object and rule. */
function drifts(plan: Plan): { address: Address; kind: Kind; rule: string }[] {
  const out = new Map<string, { address: Address; kind: Kind; rule: string }>();
  for (const step of plan.steps) {
    if (step.reason !== 'drifted' || step.action !== 'update') continue;
    for (const change of step.changes) {
      const rule = suggestedIgnoreRule(step.kind, change.path);
      if (rule !== undefined) out.set(`${step.address} ${rule}`, { address: step.address, kind: step.kind, rule });
    }
  }
  return [...out.values()];
}

/** The lines to add: to the object's manifest (this object only), or to obsync.yaml (every object of the kind on the target). */
export function ruleLines(target: string, kind: Kind, rule: string): { manifest: string; config: string } {
  const path = JSON.stringify(rule);
  return {
    manifest: `metadata:\n  ignore: [${path}]`,
    config: `targets:\n  - name: ${JSON.stringify(target)}\n    ignore:\n      ${kind}: [${path}]`,
  };
}
