import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, folderArrows, importGraph } from './imports.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('the import graph of src/', () => {
  const graph = importGraph(SRC);

  it('reads the modules and their imports (type-only and lazy imports included)', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('core/plan.ts')).toContain('core/kind-name.ts');
    expect(graph.get('cli/program.ts')).toContain('cli/commands/plan.ts');
  });

  it('has no import cycle between modules', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no two folders importing each other', () => {
    const arrows = folderArrows(graph);
    const circles = [...arrows].flatMap(([from, tos]) =>
      [...tos].filter((to) => from < to && arrows.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    );
    expect(circles).toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('finds a circle of modules, a module importing itself, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      cycles(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('finds circles between folders', () => {
    const arrows = folderArrows(
      new Map([
        ['config/load.ts', ['manifests/parse.ts']],
        ['manifests/load.ts', ['config/credentials.ts']],
      ]),
    );
    expect(arrows.get('config')?.has('manifests')).toBe(true);
    expect(arrows.get('manifests')?.has('config')).toBe(true);
  });
});
