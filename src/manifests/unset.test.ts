/**
 * Issue 40, item 2: `validate --allow-missing-env` checks everything that does not depend on an
 * unset value, and says what it could not check. (Without stand-ins, a document with an unset
 * number was dropped from the checks: a tile-key typo beside it passed.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from './load.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-unset-'));
});

/** Quoted: `${` inside a flow mapping is not plain YAML. */
const q = (v: string) => (v.includes('${') ? `"${v}"` : v);
const board = (name: string, key = 'p99', title = 'Checkout') =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${q(name)}}\nspec:\n  name: ${title}\n  tiles:\n    - {key: ${q(key)}, ` +
  `name: p99, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown}}\n`;
const alert = (spec: Record<string, string>) =>
  `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: ${spec.name ?? 'a'}}\nspec:\n${Object.entries({
    dashboard: 'checkout',
    tile: 'p99',
    threshold: '500',
    thresholdType: 'above',
    interval: '5m',
    channel: '{type: webhook, webhook: ops-slack}',
    name: 'p99 high',
    ...spec,
  })
    .filter(([k]) => k !== 'name' || spec.name === undefined)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n')}\n`;

function validate(docs: string[]) {
  writeFileSync(join(dir, 'm.yaml'), docs.join('---\n'));
  const { resources, diagnostics } = loadManifests([dir], { env: {}, allowMissingEnv: true, standIns: true });
  const text = (severity: string) => diagnostics.filter((d) => d.severity === severity).map((d) => `${d.path ?? ''}: ${d.message}`);
  return { resources: resources.map((r) => r.address), errors: text('error'), warnings: text('warning') };
}

describe('a document with an unset value, checked with stand-ins', () => {
  it('still fails on what does not depend on the value: a tile-key typo, an unknown key', () => {
    const typo = validate([board('checkout'), alert({ tile: 'p99x', threshold: '${env:T}' })]);
    expect(typo.errors).toEqual([
      expect.stringMatching(/^spec\.tile: tile 'p99x' is not a tile key of Dashboard\/checkout — did you mean 'p99'\?/),
    ]);
    expect(typo.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          /^spec\.threshold: environment variable T is not set \(referenced as \$\{env:T\}\)/.source +
            /.*; not checked: this value and what depends on it$/.source,
        ),
      ),
    ]);
    const unknown = validate([board('checkout'), alert({ threshold: '${env:T}', treshold: '5' })]);
    expect(unknown.errors).toEqual([expect.stringMatching(/^spec\.treshold: unknown key 'treshold'/)]);
  });

  it('is counted and checked like any other: nothing else wrong, no error', () => {
    const ok = validate([board('checkout'), alert({ threshold: '${env:T}', thresholdType: '${env:TYPE}', interval: '${env:EVERY}' })]);
    expect(ok.errors).toEqual([]);
    expect(ok.resources).toEqual(['Dashboard/checkout', 'Alert/a']);
    expect(ok.warnings).toHaveLength(3);
  });

  it('never reports what depends on the value: an unset reference, the keys of an unset tile key, a range bound', () => {
    const ref = validate([board('checkout'), alert({ dashboard: '${env:BOARD}', tile: 'nope' })]);
    expect(ref.errors).toEqual([]);
    const keys = validate([board('checkout', '${env:KEY}'), alert({ tile: 'p99' })]);
    expect(keys.errors).toEqual([]);
    // The other dashboard's keys do not depend on it: still checked.
    const other = validate([board('checkout', '${env:KEY}'), board('other', 'p50', 'Other'), alert({ dashboard: 'other', tile: 'p99' })]);
    expect(other.errors).toEqual([expect.stringMatching(/tile 'p99' is not a tile key of Dashboard\/other/)]);
    const range = validate([board('checkout'), alert({ thresholdType: 'between', threshold: '500', thresholdMax: '${env:MAX}' })]);
    expect(range.errors).toEqual([]);
    // thresholdMax >= threshold holds for one stand-in of the threshold and not the other: it depends on the value.
    const bound = validate([board('checkout'), alert({ thresholdType: 'between', threshold: '${env:T}', thresholdMax: '10' })]);
    expect(bound.errors).toEqual([]);
    // A bound that no threshold can meet does not depend on it.
    const never = validate([board('checkout'), alert({ thresholdType: 'between', threshold: '${env:T}' })]);
    expect(never.errors).toEqual([expect.stringMatching(/^spec\.thresholdMax: thresholdMax is required/)]);
  });

  it('says so when the object cannot be checked against the others (its name is unset), and does not fail the references to it', () => {
    const named = validate([board('${env:BOARD}'), alert({ tile: 'p99' })]);
    expect(named.errors).toEqual([]);
    expect(named.warnings).toContainEqual(
      expect.stringMatching(
        /this document is not checked against the other manifests \(references to it and from it\): its identity needs metadata\.name/,
      ),
    );
  });

  it('without stand-ins (plan, apply): the document is not a resource', () => {
    writeFileSync(join(dir, 'm.yaml'), [board('checkout'), alert({ threshold: '${env:T}' })].join('---\n'));
    const { resources } = loadManifests([dir], { env: {}, allowMissingEnv: true });
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/checkout']);
  });
});
