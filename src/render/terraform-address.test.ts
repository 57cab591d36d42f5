import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObsyncError } from '../core/errors.js';
import type { Json } from '../core/wire.js';
import { parsePlanDocument } from './plan-json-read.js';
import {
  knownAfterUnknown,
  localAddress,
  moduleAddress,
  providerName,
  resourceAddress,
  TERRAFORM_PLAN_FORMAT_VERSION,
} from './terraform-address.js';

/** Every leaf of a value. */
function leaves(value: Json): Json[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

describe('Terraform addresses', () => {
  it('puts each object of a target in that target as a module', () => {
    expect(moduleAddress('prod')).toBe('module.prod');
    expect(resourceAddress('prod', 'Dashboard/checkout')).toBe('module.prod.Dashboard.checkout');
    expect(resourceAddress('staging-eu', 'SavedSearch/errors-5xx')).toBe('module.staging-eu.SavedSearch.errors-5xx');
    expect(localAddress('Alert/checkout-p99')).toBe('Alert.checkout-p99');
    expect(providerName('self-hosted')).toBe('obsync/self-hosted');
  });
});

describe('after_unknown of a value known at plan time', () => {
  it('is what Terraform prints for a fully known value', () => {
    expect(knownAfterUnknown(null)).toBe(false);
    expect(knownAfterUnknown('x')).toBe(false);
    expect(knownAfterUnknown({})).toEqual({});
    expect(knownAfterUnknown([])).toEqual([]);
    expect(knownAfterUnknown({ name: 'a', threshold: 1, tags: ['x', 'y'], tiles: { p99: { w: 1, select: [{ a: 1 }] } } })).toEqual({
      tags: [false, false],
      tiles: { p99: { select: [{}] } },
    });
  });

  it('never marks a value unknown, keeps the shape of arrays and drops every known scalar of an object', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const shape = knownAfterUnknown(value as Json);
        expect(leaves(shape).every((l) => l === false)).toBe(true);
        if (Array.isArray(value)) expect((shape as Json[]).length).toBe(value.length);
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          const kept = Object.keys(shape as object);
          expect(kept.every((k) => k in value)).toBe(true);
          for (const [k, v] of Object.entries(value)) if (v === null || typeof v !== 'object') expect(kept).not.toContain(k);
        }
      }),
    );
  });
});

describe('a saved plan that is not of this format', () => {
  const refusal = (doc: object): string => {
    try {
      parsePlanDocument(JSON.stringify(doc), 'plan.json');
    } catch (err) {
      expect(err).toBeInstanceOf(ObsyncError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it(
    'is refused naming its version: an obsync 3.x plan (its version was then format_version), a 4.x one ' +
      '(target.* addresses), a newer one',
    () => {
      expect(refusal({ format_version: '3.1', targets: [] })).toBe(
        'plan.json has plan format version 3.1; this obsync applies version 5.1 plans only',
      );
      expect(refusal({ format_version: TERRAFORM_PLAN_FORMAT_VERSION, obsync_format_version: '4.0', targets: [] })).toBe(
        'plan.json has plan format version 4.0; this obsync applies version 5.1 plans only',
      );
      expect(refusal({ format_version: TERRAFORM_PLAN_FORMAT_VERSION, obsync_format_version: '5.9', targets: [] })).toContain(
        'plan format version 5.9',
      );
    },
  );

  it("is refused when it is Terraform's own plan", () => {
    for (const format_version of ['0.1', '1.2'])
      expect(refusal({ format_version, terraform_version: '1.9.0', resource_changes: [] })).toBe(
        'plan.json has no obsync plan format version (is it a plan of obsync?); this obsync applies version 5.1 plans only',
      );
  });
});
