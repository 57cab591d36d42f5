import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderOf, KIND_ORDER, KINDS, MANAGED, REGISTRY } from './registry.js';

const here = import.meta.dirname;

describe('the kind registry', () => {
  it('lists exactly the kind folders under src/kinds, each exporting its registry entry', async () => {
    const folders = readdirSync(here, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(REGISTRY.map((d) => folderOf(d.kind)).sort()).toEqual(folders);
    for (const def of REGISTRY) {
      const file = join(here, folderOf(def.kind), 'definition.ts');
      expect(existsSync(file), file).toBe(true);
      const module = (await import(file)) as Record<string, unknown>;
      expect(Object.values(module), `${file} exports the ${def.kind} definition`).toContain(def);
    }
  });

  it('orders kinds after the kinds they refer to, and derives the manifest kinds', () => {
    const position = new Map(KIND_ORDER.map((d, i) => [d.kind, i]));
    for (const def of REGISTRY) {
      for (const target of def.refersTo.filter((k) => k !== def.kind))
        expect(position.get(target), `${def.kind} after ${target}`).toBeLessThan(position.get(def.kind) ?? -1);
    }
    expect(KINDS).toEqual(REGISTRY.filter((d) => d.managed).map((d) => d.kind));
    expect(new Set(MANAGED.map((d) => d.kind))).toEqual(new Set(KINDS));
  });

  it('gives every kind obsync creates the natural key of a create body (a create is proven by it)', () => {
    for (const def of MANAGED.filter((d) => d.creatable)) expect(typeof def.bodyKey, def.kind).toBe('function');
  });

  it('names folders after kinds', () => {
    expect(folderOf('SavedSearch')).toBe('saved-search');
    expect(folderOf('Dashboard')).toBe('dashboard');
  });
});
