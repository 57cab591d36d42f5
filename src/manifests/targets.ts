/**
 * One repository, several environments (DESIGN §3): each target reads its own tree — the
 * top-level manifests plus its own — with its own `${var:}` values, and may declare only kinds
 * its API variant serves. A file that does not interpolate is loaded once for all targets; one that does, once per target.
 */
import { formatDiagnostic, sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import type { Variant } from '../core/ports.js';
import type { IgnoreRule } from '../core/ignore.js';
import type { Kind } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import { documentDigest } from './document.js';
import { markInSpec, type Mark } from '../kinds/mark.js';
import { managedDefinition } from '../kinds/registry.js';
import { servesKind, variantsServing } from '../kinds/variants.js';
import { loadManifests, type LoadOptions, type LoadResult } from './load.js';
import { LoadedFiles } from './loaded-files.js';

/** What one target reads. */
export interface TargetTree {
  target: string;
  /** The API it speaks (undefined: not checked, e.g. an invalid variant already reported). */
  api: Variant | undefined;
  paths: readonly string[];
  /** Its vars (none: no target gives `${var:}` a value). */
  vars: Readonly<Record<string, string>> | undefined;
  /** Its ignore rules per kind from obsync.yaml (defaults and its own), added to each resource's metadata.ignore. */
  ignore?: Partial<Record<Kind, readonly IgnoreRule[]>>;
  /** Its mark (obsync.yaml `mark`): a manifest that spells it itself is refused. */
  mark?: Mark;
}

export interface TargetLoad extends LoadResult {
  target: string;
}

/** Every target's desired state, the files that do not interpolate loaded once between them. */
export function loadTargetTrees(trees: readonly TargetTree[], opts: LoadOptions): TargetLoad[] {
  const loaded = opts.loaded ?? new LoadedFiles();
  return trees.map((tree) => loadTargetTree(tree, { ...opts, loaded }));
}

export function loadTargetTree(tree: TargetTree, opts: LoadOptions): TargetLoad {
  const read = loadManifests(tree.paths, { ...opts, ...(tree.vars ? { vars: { target: tree.target, values: tree.vars } } : {}) });
  const ruled = tree.ignore ? { ...read, resources: withIgnoreRules(read.resources, tree.ignore) } : read;
  const loaded = tree.mark ? withoutMarkedSpecs(ruled, tree.target, tree.mark) : ruled;
  const { api } = tree;
  if (api === undefined) return { target: tree.target, ...loaded };
  const unserved = loaded.resources.filter((r) => !servesKind(api, r.kind));
  if (unserved.length === 0) return { target: tree.target, ...loaded };
  return {
    target: tree.target,
    resources: loaded.resources.filter((r) => servesKind(api, r.kind)),
    diagnostics: sortDiagnostics([...loaded.diagnostics, ...unserved.map((r) => notServed(tree.target, api, r))]),
    emptyFiles: loaded.emptyFiles,
    policies: loaded.policies,
    alertTests: loaded.alertTests,
  };
}

/**
 * Each resource of a kind the target has rules for, with those rules after its own: a new object
 * (a load may be shared with other targets) with a digest of its own, so a daemon's memo and its
 * last plan tell rules that changed from rules that did not.
 */
function withIgnoreRules(resources: DesiredResource[], rules: Partial<Record<Kind, readonly IgnoreRule[]>>): DesiredResource[] {
  return resources.map((res) => {
    const added = rules[res.kind];
    if (!added || added.length === 0) return res;
    const ignore = [...(res.ignore ?? []), ...added];
    const { digest, ...rest } = res;
    return { ...rest, ignore, ...(digest === undefined ? {} : { digest: documentDigest([digest, ignore]) }) };
  });
}

/** A manifest that lists the target's mark itself is an error: the mark is taken out of what is read, so it would differ forever. */
function withoutMarkedSpecs(loaded: LoadResult, target: string, mark: Mark): LoadResult {
  const found = loaded.resources.flatMap((r) => {
    const field = managedDefinition(r.kind)?.markField;
    const problem = field && markInSpec(field, r.spec, mark);
    return problem ? [{ r, problem }] : [];
  });
  if (found.length === 0) return loaded;
  const refused = new Set(found.map((f) => f.r));
  const diagnostics: Diagnostic[] = found.map(({ r, problem }) => ({
    severity: 'error',
    code: 'mark-in-manifest',
    message: `${r.address}: ${problem} (target '${target}')`,
    ...r.source,
    address: r.address,
  }));
  return {
    ...loaded,
    resources: loaded.resources.filter((r) => !refused.has(r)),
    diagnostics: sortDiagnostics([...loaded.diagnostics, ...diagnostics]),
  };
}

function notServed(target: string, api: Variant, r: DesiredResource): Diagnostic {
  const servedBy = variantsServing(r.kind).join(' or ');
  return {
    severity: 'error',
    code: 'kind-not-served',
    message:
      `target '${target}' (${api}) cannot manage ${r.kind} objects: ${r.address} is served by ${servedBy} targets only — ` +
      `move its file to the manifests of ${servedBy} targets (targets[].manifests in obsync.yaml)`,
    ...r.source,
    address: r.address,
  };
}

/**
 * The diagnostics of several targets' loads as one list: a problem of a shared file is shown
 * once; one that only some targets have (a var's value, a kind one variant lacks) names them.
 */
export function mergeTargetDiagnostics(loads: readonly Pick<TargetLoad, 'target' | 'diagnostics'>[]): Diagnostic[] {
  const byKey = new Map<string, { diagnostic: Diagnostic; targets: string[] }>();
  for (const load of loads) {
    for (const d of load.diagnostics) {
      const key = `${formatDiagnostic(d)}\u0000${d.code}`;
      const seen = byKey.get(key);
      if (seen) seen.targets.push(load.target);
      else byKey.set(key, { diagnostic: d, targets: [load.target] });
    }
  }
  const merged = [...byKey.values()].map(({ diagnostic, targets }) => {
    if (loads.length < 2 || targets.length === loads.length || targets.every((t) => diagnostic.message.includes(`'${t}'`)))
      return diagnostic;
    return {
      ...diagnostic,
      message: `${diagnostic.message} (target${targets.length > 1 ? 's' : ''} ${targets.map((t) => `'${t}'`).join(', ')})`,
    };
  });
  return sortDiagnostics(merged);
}
