import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION } from '../core/plan.js';
import { parsePlanDocument } from './plan-json.js';

const doc = {
  formatVersion: PLAN_FORMAT_VERSION,
  target: 't',
  variant: 'self-hosted',
  steps: [],
  summary: { create: 0, update: 0, delete: 0, noop: 0 },
  prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
  forget: [],
  diagnostics: [],
  errored: false,
  generatedAt: '2026-01-01T00:00:00.000Z',
  obsyncVersion: '0.1.0',
  manifests: ['/m'],
};

describe('saved plans', () => {
  it('parse back when made by this plan format', () => {
    expect(parsePlanDocument(JSON.stringify(doc), 'plan.json').target).toBe('t');
  });

  it('of another format version are refused, naming both versions and what to do', () => {
    const old = { ...doc, formatVersion: 1 };
    expect(() => parsePlanDocument(JSON.stringify(old), 'plan.json')).toThrow(/plan\.json has plan format version 1; this obsync applies version 2 plans only/);
    try {
      parsePlanDocument(JSON.stringify(old), 'plan.json');
    } catch (err) {
      expect((err as { hint?: string }).hint).toMatch(/obsync plan --out/);
    }
    expect(() => parsePlanDocument('{"steps": []}', 'x.json')).toThrow(/no plan format version/);
  });
});
