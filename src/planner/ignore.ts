/**
 * Ignore rules in the planner's comparison (issue 48), the one place they act: a difference at an
 * ignored field is taken out of a matched object's changes, and the object is planned as if its
 * manifest said what the service has there — so an update sends the live value back (the UI's edit
 * is not reverted), and pull and proposals, which build on these changes, leave the field alone.
 * A create is not compared: it sends the manifest's value.
 *
 * How: the live object in manifest terms (the kind's export), its values at the ignored paths laid
 * over the manifest's spec, the result compared again. The rules may only take differences away:
 * a comparison that would show any difference the plain one does not is not used (the object is
 * planned without its rules, and a note says so).
 */
import { ANY_ITEM, parseIgnorePath, ruleCovers, type IgnoreRule } from '../core/ignore.js';
import { isJsonObject, setOwn } from '../core/json.js';
import type { LiveObject } from '../core/live.js';
import { nameOf, type Change, type IgnoredChange } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import type { ExportContext, ManagedKind } from '../kinds/kind.js';
import type { RefContext } from '../kinds/refs.js';
import type { PlanContext } from './context.js';
import { diffCanonical, splitPath } from './diff.js';

/** The object's comparison with its rules applied. */
export type RuledComparison =
  | { applied: true; changes: Change[]; ignored: IgnoredChange[]; res: DesiredResource; desired: Json }
  | { applied: false; note: string };

export interface RuledInput {
  ctx: PlanContext;
  def: ManagedKind;
  res: DesiredResource;
  live: LiveObject;
  pairing: ReadonlyMap<string, string> | undefined;
  refs: RefContext;
  fingerprints: Readonly<Record<string, string>>;
  /** The live object's comparable form, and the plain comparison's changes (some at ignored paths). */
  current: Json;
  changes: readonly Change[];
}

export function applyIgnoreRules(input: RuledInput, rules: readonly IgnoreRule[]): RuledComparison {
  const { def, res } = input;
  const parsed = rules.flatMap((rule) => {
    const p = parseIgnorePath(rule.path);
    return 'segments' in p ? [{ rule, segments: p.segments }] : [];
  });
  let liveSpec: Json;
  try {
    liveSpec = def.toManifest(input.live, exportContext(input.ctx, input.pairing));
  } catch {
    return { applied: false, note: notApplied('the live object could not be read in manifest terms') };
  }
  let spec = res.spec as Json;
  for (const { segments } of parsed) spec = overlay(spec, liveSpec, segments);
  const valid = def.spec.safeParse(spec);
  if (!valid.success) return { applied: false, note: notApplied("the service's values there do not fit the manifest's schema") };
  const { digest: _digest, ...rest } = res;
  const ruled: DesiredResource = { ...rest, spec: valid.data };
  const desired = def.canonicalDesired(ruled, input.refs, input.fingerprints);
  if (!desired.ok) return { applied: false, note: notApplied(desired.errors.join('; ')) };
  const changes = diffCanonical(input.current, desired.value);
  const before = new Map(input.changes.map((c) => [c.path, changeKey(c)]));
  // The class this guards: a rule that adds or alters a difference instead of only taking one away.
  if (changes.some((c) => before.get(c.path) !== changeKey(c)))
    return { applied: false, note: notApplied('they would change more than the ignored fields') };
  const kept = new Set(changes.map((c) => c.path));
  const ignored = input.changes.filter((c) => !kept.has(c.path)).map((c) => attributed(c, parsed));
  return { applied: true, changes, ignored, res: ruled, desired: desired.value };
}

function notApplied(why: string): string {
  return `the ignore rules were not applied to this object (${why}): its differences are planned as usual`;
}

function changeKey(c: Change): string {
  return JSON.stringify([c.before ?? null, c.after ?? null, c.sensitive === true]);
}

/** The rule whose path covers the difference (the first); a difference the kind spells otherwise names every rule. */
function attributed(change: Change, rules: readonly { rule: IgnoreRule; segments: string[] }[]): IgnoredChange {
  const path = splitPath(change.path);
  const covering = rules.filter((r) => ruleCovers(r.segments, path));
  const named = covering.length > 0 ? covering.slice(0, 1) : rules;
  const out: IgnoredChange = { ...change, rule: named.map((r) => r.rule.path).join(', '), from: named.map((r) => r.rule.from).join(', ') };
  return out;
}

/**
 * `spec` with the value `live` has at the path (removed where the live object has none). `[*]`
 * pairs list items by their `key` when they have one (a dashboard's tiles), else by position; an
 * item the live object lacks keeps the manifest's value. Copies along the path, never mutates.
 */
export function overlay(spec: Json, live: Json | undefined, segments: readonly string[]): Json {
  const [seg, ...rest] = segments;
  if (seg === undefined) return live ?? spec;
  if (seg === ANY_ITEM) {
    if (!Array.isArray(spec) || !Array.isArray(live)) return spec;
    const byKey = keyed(live);
    return spec.map((item, i) => {
      const partner = byKey && isJsonObject(item) && typeof item.key === 'string' ? byKey.get(item.key) : byKey ? undefined : live[i];
      return partner === undefined ? item : overlay(item, partner, rest);
    });
  }
  if (!isJsonObject(spec)) return spec;
  const liveChild = isJsonObject(live) && Object.hasOwn(live, seg) ? live[seg] : undefined;
  const child = Object.hasOwn(spec, seg) ? spec[seg] : undefined;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(spec)) if (k !== seg) setOwn(out, k, v);
  if (rest.length === 0) {
    if (liveChild !== undefined) setOwn(out, seg, liveChild);
    return out;
  }
  if (child === undefined) return spec;
  setOwn(out, seg, overlay(child, liveChild, rest));
  return out;
}

/** Items by their `key`, when every item has one (parts); undefined for a plain list. */
function keyed(items: readonly Json[]): Map<string, Json> | undefined {
  const out = new Map<string, Json>();
  for (const item of items) {
    if (!isJsonObject(item) || typeof item.key !== 'string') return undefined;
    out.set(item.key, item);
  }
  return out;
}

/**
 * How the planner asks a kind's export for a live object: references by the manifest names this
 * plan matched, else by id; the object's own parts under the keys they are paired with.
 */
function exportContext(ctx: PlanContext, pairing: ReadonlyMap<string, string> | undefined): ExportContext {
  const declared = (kind: Parameters<ExportContext['ref']>[0], id: string) => {
    const address = ctx.ids.addressOf(kind, id);
    return address === undefined ? { id } : nameOf(address);
  };
  return {
    ref: declared,
    declaredRef: declared,
    partRef(kind, parentId, partId) {
      const address = ctx.ids.addressOf(kind, parentId);
      return (address && ctx.ids.partKey(address, partId)) ?? { id: partId };
    },
    uniqueDisplayName: () => false,
    // Sensitive fields are never ignorable (manifests/ignore-rules.ts): their values are not read here.
    secret: () => '',
    note: () => undefined,
    ...(pairing ? { partKeys: new Map([...pairing].map(([key, id]) => [id, key])) } : {}),
  };
}
