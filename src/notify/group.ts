/**
 * One line for what a run found of one class on one target (issue 52 item 2): "6 objects were
 * missing on staging and were recreated: Dashboard/a, Dashboard/b, Dashboard/c and 3 more". Pure:
 * the events of the run in, plain text out (the sinks escape it for their format). One object
 * reads as before: its address and what happened to it.
 */
import { describeEvent, eventObject } from '../events/describe.js';
import type { EventOf, ObsyncEvent } from '../events/vocabulary.js';

/** The classes about objects: what one run finds of each is told in one notification per target. */
export const OBJECT_CLASSES = ['drift', 'healed', 'adopted', 'refused', 'non-convergent'] as const;
export type ObjectClass = (typeof OBJECT_CLASSES)[number];

/** What else the run told of the objects of a group. */
export interface RunFacts {
  /** Objects the run put back (healed). */
  healed: ReadonlySet<string>;
  /** Objects the run found missing on the service. */
  missing: ReadonlySet<string>;
}

const NAMES_SHOWN = 3;
const PATHS_SHOWN = 5;

/** `A`, `A and B`, `A, B, C and 3 more`. */
export function nameList(names: readonly string[], shown = NAMES_SHOWN): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length <= shown) return `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

function pathList(paths: readonly string[]): string {
  return paths.length === 0 ? '' : `: ${nameList(paths, PATHS_SHOWN)}`;
}

interface Part {
  /** What happened, for one object and for several (`was missing on staging`, `were missing on staging`). */
  one: string;
  many: string;
  events: ObsyncEvent[];
}

const be = (one: boolean) => (one ? 'was' : 'were');

/** A class's events split by what happened to them, in the order first seen. */
function parts(kind: ObjectClass, events: readonly ObsyncEvent[], facts: RunFacts, where: string): Part[] {
  const byKey = new Map<string, Part>();
  for (const e of events) {
    const [key, phrase] = partOf(kind, e, facts, where);
    let part = byKey.get(key);
    if (!part) byKey.set(key, (part = { one: phrase(true), many: phrase(false), events: [] }));
    part.events.push(e);
  }
  return [...byKey.values()];
}

function partOf(kind: ObjectClass, e: ObsyncEvent, facts: RunFacts, where: string): [string, (one: boolean) => string] {
  const address = eventObject(e) ?? '';
  if (kind === 'drift' && e.event === 'drift') return driftPart(e, facts.healed.has(address), where);
  if (kind === 'healed') {
    const recreated = facts.missing.has(address);
    return [recreated ? 'recreated' : 'put back', (one) => `${be(one)} ${recreated ? 'recreated' : 'put back as declared'}${where}`];
  }
  if (kind === 'adopted') return ['adopted', (one) => `${be(one)} adopted${where} (existing object${one ? '' : 's'} taken over)`];
  if (kind === 'non-convergent') return ['nc', (one) => `${one ? 'does' : 'do'} not keep some fields as sent${where}`];
  return ['refused', (one) => `${be(one)} refused${where}`];
}

function driftPart(e: EventOf<'drift'>, healed: boolean, where: string): [string, (one: boolean) => string] {
  const then = (one: boolean, done: string) => (healed ? ` and ${be(one)} ${done}` : '');
  switch (e.reason) {
    case 'missing':
      return [`missing ${healed}`, (one) => `${be(one)} missing${where}${then(one, 'recreated')}`];
    case 'drifted':
      return [`drifted ${healed}`, (one) => `${be(one)} changed${where}${then(one, 'put back')}`];
    case 'spec-changed':
      return ['spec-changed', (one) => `${one ? 'has' : 'have'} manifest changes not applied${where}`];
    case 'not-declared':
      return ['not-declared', (one) => `${one ? 'is' : 'are'} no longer declared${where} (a prune would delete ${one ? 'it' : 'them'})`];
  }
}

/** The line for one object, as told before grouping: its address and what happened. */
function single(kind: ObjectClass, e: ObsyncEvent, facts: RunFacts, target: string): string {
  const address = eventObject(e);
  if (kind === 'drift' || kind === 'healed') {
    const [part] = parts(kind, [e], facts, ` on ${target}`);
    const paths = 'paths' in e && (e.event === 'healed' || (e.event === 'drift' && e.reason !== 'missing')) ? pathList(e.paths) : '';
    return `${address ?? ''} ${part?.one ?? describeEvent(e)}${paths}`;
  }
  return `${address ? `${address} ` : ''}${describeEvent(e)}`;
}

/** The summary of a group: one class, one target, one run. */
export function groupSummary(kind: ObjectClass, target: string, events: readonly ObsyncEvent[], facts: RunFacts): string {
  const [first] = events;
  if (!first) return '';
  if (events.length === 1) return single(kind, first, facts, target);
  if (kind === 'refused') {
    const told = events.map((e) => `${eventObject(e) ? `${eventObject(e)} ` : ''}${describeEvent(e)}`);
    return (
      `${events.length} actions refused on ${target}: ` +
      `${told.slice(0, NAMES_SHOWN).join('; ')}${told.length > NAMES_SHOWN ? `; and ${told.length - NAMES_SHOWN} more` : ''}`
    );
  }
  const split = parts(kind, events, facts, '');
  const names = (p: Part) => nameList(p.events.map((e) => eventObject(e) ?? ''));
  const count = (n: number) => (n === 1 ? '1 object' : `${n} objects`);
  if (split.length === 1) {
    const [only] = parts(kind, events, facts, ` on ${target}`);
    return `${count(events.length)} ${only?.many ?? ''}: ${only ? names(only) : ''}`;
  }
  const what = kind === 'drift' ? 'drifted' : kind === 'healed' ? 'were put back' : kind === 'adopted' ? 'were adopted' : 'do not converge';
  return (
    `${count(events.length)} ${what} on ${target}: ` +
    `${split.map((p) => `${p.events.length} ${p.events.length === 1 ? p.one : p.many} (${names(p)})`).join('; ')}`
  );
}
