/**
 * Field edits of one manifest document, in value terms: what `obsync pull` changes, applied to a
 * plain value (to compare the edited spec with the live object) and spliced into the YAML text
 * (./yaml-splice.ts). Paths are the document's, from its root (`['spec', 'tiles', 0, 'x']`); list
 * indexes are those of the document before any edit, so edits do not depend on their order.
 */
import { copyJson, isJsonObject, setOwn } from '../core/json.js';
import type { Json } from '../core/wire.js';

export type Path = readonly (string | number)[];

export type Edit =
  /** The value at `path` (which exists) becomes `value`. */
  | { op: 'set'; path: Path; value: Json }
  /** The map at `path` gets `key` (after the entry `after` when it has one, else at its end). */
  | { op: 'add'; path: Path; key: string; value: Json; after?: string }
  /** The map entry or list item at `path` goes. */
  | { op: 'remove'; path: Path }
  /** The list at `path` gets `value` before its item `index` (its length: at the end). */
  | { op: 'insert'; path: Path; index: number; value: Json };

/** The path an edit is about: the field it sets, adds or removes, or the list item it inserts. */
export function editPath(edit: Edit): Path {
  if (edit.op === 'add') return [...edit.path, edit.key];
  if (edit.op === 'insert') return [...edit.path, edit.index];
  return edit.path;
}

/** `spec.tiles[0].x`, as plans write paths. */
export function formatEditPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += /^[A-Za-z_$][\w$]*$/.test(seg) ? `${out === '' ? '' : '.'}${seg}` : `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** The value an edit writes, if any. */
export function editValue(edit: Edit): Json | undefined {
  return edit.op === 'remove' ? undefined : edit.value;
}

/** Every value in `root` at `path`, or undefined when the path does not exist. */
export function valueAtPath(root: Json | undefined, path: Path): Json | undefined {
  let cur = root;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === 'number') cur = cur[seg];
    else if (isJsonObject(cur) && typeof seg === 'string' && Object.hasOwn(cur, seg)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/**
 * `root` with the edits made (a copy; `root` is not changed). Field edits first, with the paths
 * as they were; then each list's removals and insertions, deepest lists first, so that the
 * original indexes hold throughout.
 */
export function applyEdits(root: Json, edits: readonly Edit[]): Json {
  const out = copyJson(root);
  const lists = new Map<string, { path: Path; removed: Set<number>; inserted: { index: number; value: Json }[] }>();
  const listOf = (path: Path) => {
    const key = JSON.stringify(path);
    let list = lists.get(key);
    if (!list) lists.set(key, (list = { path, removed: new Set(), inserted: [] }));
    return list;
  };
  let replaced: Json = out;
  for (const edit of edits) {
    if (edit.op === 'insert') listOf(edit.path).inserted.push({ index: edit.index, value: copyJson(edit.value) });
    else if (edit.op === 'remove' && typeof edit.path.at(-1) === 'number')
      listOf(edit.path.slice(0, -1)).removed.add(edit.path.at(-1) as number);
    else if (edit.path.length === 0 && edit.op === 'set') replaced = copyJson(edit.value);
    else fieldEdit(out, edit);
  }
  const ordered = [...lists.values()].sort((a, b) => b.path.length - a.path.length);
  for (const { path, removed, inserted } of ordered) {
    const list = valueAtPath(out, path);
    if (!Array.isArray(list)) continue;
    const next: Json[] = [];
    for (let i = 0; i <= list.length; i++) {
      for (const ins of inserted) if (ins.index === i) next.push(ins.value);
      const item = list[i];
      if (i < list.length && !removed.has(i) && item !== undefined) next.push(item);
    }
    list.splice(0, list.length, ...next);
  }
  return replaced === out ? out : replaced;
}

function fieldEdit(root: Json, edit: Edit): void {
  const parentPath = edit.op === 'add' ? edit.path : edit.path.slice(0, -1);
  const parent = valueAtPath(root, parentPath);
  if (edit.op === 'add') {
    if (isJsonObject(parent)) setOwn(parent, edit.key, copyJson(edit.value));
    return;
  }
  const last = edit.path.at(-1);
  if (last === undefined) return;
  if (Array.isArray(parent) && typeof last === 'number' && edit.op === 'set') parent.splice(last, 1, copyJson(edit.value));
  else if (isJsonObject(parent) && typeof last === 'string') {
    if (edit.op === 'set') setOwn(parent, last, copyJson(edit.value));
    else if (edit.op === 'remove') Reflect.deleteProperty(parent, last);
  }
}
