/**
 * The import graph of src/ (type-only imports included: a type import is still an arrow between
 * two modules), read with the TypeScript compiler's own pre-processor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every non-test module below `root` with the modules of `root` it imports (paths relative to `root`). */
export function importGraph(root: string): ImportGraph {
  const files = walk(root).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    const targets = imports
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target));
    graph.set(relative(root, file), [...new Set(targets.map((t) => relative(root, t)))]);
  }
  return graph;
}

/** The strongly connected components of more than one module, or a module importing itself (Tarjan). */
export function cycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The folder arrows (`config → manifests`) between top-level folders of src/. */
export function folderArrows(graph: ImportGraph): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = topFolder(from);
    for (const to of targets) {
      const b = topFolder(to);
      if (a === b) continue;
      const set = arrows.get(a) ?? new Set<string>();
      set.add(b);
      arrows.set(a, set);
    }
  }
  return arrows;
}

function topFolder(path: string): string {
  return path.split('/')[0] ?? path;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}
