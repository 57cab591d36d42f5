/**
 * Objects made on the service that no manifest declares and no target owns, written by pull as
 * new manifests where `obsync export` would put them — only those an opt-in rule selects:
 * `--include-unmanaged SELECTOR`, terms joined by commas that must all hold: `Kind` (or
 * `kind=Kind`), `tag=NAME` (the object carries the tag; the opt-in tag rule, e.g. `tag=gitops`),
 * `name=REGEX` (its display name matches). How each becomes owned follows the target's adoption
 * policy: by-name, the next plan adopts it by its natural key; explicit (or a key other objects
 * share), `obsync import` must.
 */
import { join } from 'node:path';
import type { LiveObject } from '../core/live.js';
import type { Address, AdoptPolicy } from '../core/plan.js';
import { exportLive } from '../export/exporter.js';
import { MANAGED, type AnyKind } from '../kinds/registry.js';
import type { UnmanagedRule } from './selector.js';
import type { PlanContext } from '../planner/context.js';
import type { LiveNames } from './live-manifest.js';
import type { NewManifest } from './result.js';

export { parseUnmanagedSelector, SelectorError, type UnmanagedRule } from './selector.js';

export interface UnmanagedInput {
  target: string;
  adopt: AdoptPolicy;
  context: PlanContext;
  names: LiveNames;
  /** Ids matched by the target's plan (declared objects). */
  matched: ReadonlySet<string>;
  rule: UnmanagedRule;
  /** The folder the new manifests go below (export's layout: `<kind folder>/<name>.yaml`). */
  dir: string;
  /** Addresses any target already declares: a new manifest may not take one. */
  declared: ReadonlySet<Address>;
}

export function newManifests(input: UnmanagedInput): { created: NewManifest[]; taken: NewManifest[] } {
  const { context, names } = input;
  const owned = new Set(context.input.inventory.flatMap((e) => (e.id === null ? [] : [`${e.kind}\u0000${e.id}`])));
  const free = (kind: AnyKind, o: LiveObject) =>
    !owned.has(`${kind}\u0000${o.id}`) && !input.matched.has(o.id) && context.input.ownersElsewhere?.owner(kind, o.id) === undefined;
  const exported = exportLive({
    objects: (kind) => context.input.live.objects(kind),
    owned: context.input.inventory,
    target: input.target,
    include: (kind, o) => free(kind, o) && input.rule(kind, o, displayName(kind, o)),
    declared: {
      name: (kind, id) => names.declaredName(kind, id),
      declares: (kind, name) => input.declared.has(`${kind}/${name}`),
      partKeys: (kind, id) => {
        const address = context.ids.addressOf(kind, id);
        const parts = address ? context.ids.parts(address) : undefined;
        return parts ? new Map([...parts].map(([key, partId]) => [partId, key])) : undefined;
      },
    },
  });
  const created: NewManifest[] = [];
  const taken: NewManifest[] = [];
  for (const m of exported.manifests) {
    const byImport = input.adopt === 'explicit' || exported.sharedKeys.includes(m.address);
    const manifest: NewManifest = {
      target: input.target,
      address: m.address,
      id: m.id,
      file: join(input.dir, m.file),
      text: m.text,
      adoption: byImport
        ? {
            by: 'import',
            command: `obsync import --target ${input.target} ${m.address} ${m.id}`,
            reason: input.adopt === 'explicit' ? 'explicit' : 'shared-key',
          }
        : { by: 'plan' },
      variables: exported.variables.filter((v) => v.address === m.address).map((v) => v.name),
    };
    (input.declared.has(m.address) ? taken : created).push(manifest);
  }
  return { created, taken };
}

function displayName(kind: AnyKind, live: LiveObject): string {
  const def = MANAGED.find((d) => d.kind === kind);
  return def?.displayName?.(live) ?? '';
}
