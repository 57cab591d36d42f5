/**
 * obsync.yaml's values as written: literals read before interpolation, templates left unresolved, and the
 * value without what cannot be judged yet.
 */
import { isAbsolute, resolve } from 'node:path';
import { isScalar, isSeq, type Document } from 'yaml';

/** A template left as written (a target not resolved): its value cannot be judged yet. */
export const UNRESOLVED_REFERENCE = /\$\{(env|file|var):/;

/** A copy of the document value without the values at these paths (each left out, as if not written). */
export function withoutPaths(value: unknown, paths: readonly (readonly PropertyKey[])[]): unknown {
  const copy = structuredClone(value);
  for (const path of paths) {
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((v, seg) => (typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[seg] : undefined), copy);
    const last = path.at(-1);
    if (typeof parent === 'object' && parent !== null && last !== undefined) delete (parent as Record<PropertyKey, unknown>)[last];
  }
  return copy;
}

/** Whether the value an issue is about is still an unresolved `${...}` template. */
export function stillTemplate(item: unknown, path: readonly PropertyKey[] | undefined): boolean {
  let v = item;
  for (const seg of path ?? []) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return typeof v === 'string' && UNRESOLVED_REFERENCE.test(v);
}

/** A string as written (before interpolation), if it is one without references. */
export function literalString(doc: Document, path: readonly PropertyKey[]): string | undefined {
  const value: unknown = doc.getIn(path);
  return typeof value === 'string' && !value.includes('${') ? value : undefined;
}

/** `allowFileOutside` as written (before interpolation: a reference cannot widen its own confinement). */
export function literalAllowOutside(doc: Document, dir: string): boolean | string[] {
  const node = doc.get('allowFileOutside', true);
  if (isScalar(node)) return node.value === true;
  if (isSeq(node))
    return node.items.flatMap((item) =>
      isScalar(item) && typeof item.value === 'string' && !item.value.includes('${')
        ? [isAbsolute(item.value) ? item.value : resolve(dir, item.value)]
        : [],
    );
  return false;
}
