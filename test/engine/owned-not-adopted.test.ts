/**
 * An object the inventory owns is never adopted by another manifest, whichever is planned first:
 * a second manifest with the same natural key is created, not paired with the owned object. The
 * owned ids are gathered only when a plan first asks (src/planner/context.ts, TakenIds).
 */
import { describe, expect, it } from 'vitest';
import { addressOf, type Kind } from '../../src/core/plan.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan, type PlanRequest } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { specSchemas } from '../../src/kinds/manifest.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

function resource(kind: Kind, name: string, spec: Record<string, unknown>): DesiredResource {
  return {
    kind,
    name,
    address: addressOf(kind, name),
    labels: {},
    spec: specSchemas[kind].parse(structuredClone(spec)),
    source: { file: 'owned.yaml', line: 1, col: 1 },
  };
}

const HOOK = { service: 'generic', name: 'on-call hook', url: 'https://example.com/hook-41a2' };

describe('an owned object and a second manifest with its natural key', () => {
  for (const copy of ['a-copy', 'z-copy']) {
    it(
      `creates the second one (${copy === 'a-copy' ? 'planned before' : 'planned after'} ` + `the owner), never adopts the owned object`,
      async () => {
        const domain = createObservabilityDomain({ seed: 'demo' });
        const port = inProcessPort(domain, 'self-hosted', 'owned');
        const inventory = memoryInventory('owned');
        const request = (desired: DesiredResource[]): PlanRequest => ({
          port,
          inventory,
          desired,
          sensitive: SENSITIVE_PATHS,
          selection: SELECT_ALL,
          prune: false,
          maxDeletes: 0,
        });
        const owner = resource('Webhook', 'm-owner', HOOK);
        await applyPlanned(await makePlan(request([owner])), { port, inventory, concurrency: 1 });
        const ownedId = inventory.get(owner.address)?.id;
        expect(ownedId).toEqual(expect.any(String));

        const { plan } = await makePlan(request([owner, resource('Webhook', copy, HOOK)]));
        const step = (name: string) => plan.steps.find((s) => s.name === name);
        expect(step('m-owner')).toMatchObject({ action: 'noop', id: ownedId });
        expect(step(copy)).toMatchObject({ action: 'create', reason: 'missing' });
        expect(step(copy)?.adopt).toBeUndefined();
      },
    );
  }
});
