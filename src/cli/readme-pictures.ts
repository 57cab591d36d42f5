/**
 * The pictures of the README's quickstart change (issue 42): the example manifests applied to a
 * sandbox, then the checkout p99 alert's threshold lowered from 500 to 400 and planned with previews
 * and a backtest — what `plan --preview-dir` draws for that change, at a fixed clock on the sandbox's
 * deterministic data, so the same pictures come out on every machine. Written to docs/images/ by
 * `npm run docs` (scripts/readme-pictures.js); test/docs/readme-pictures.test.ts checks they are current.
 */
import { join } from 'node:path';
import type { DesiredResource } from '../core/resource.js';
import { reconcile, type ReconcileRequest } from '../engine/reconcile.js';
import { SELECT_ALL } from '../engine/selection.js';
import { memoryInventory } from '../inventory/memory-store.js';
import { loadManifests } from '../manifests/load.js';
import { reportPictures } from '../render/preview/report-pictures.js';
import { createObservabilityDomain } from '../sandbox/domain/index.js';
import { inProcessPort } from '../sandbox/in-process-port.js';

export const README_CLOCK = new Date('2026-09-01T12:00:00.000Z');
const ALERT = 'Alert/checkout-p99-high';

/** File name in docs/images/ → PNG. */
export async function readmePictures(root: string): Promise<Map<string, Buffer>> {
  const port = inProcessPort(createObservabilityDomain({ now: () => README_CLOCK }), 'self-hosted', 'sandbox');
  const base: ReconcileRequest = {
    mode: 'apply',
    port,
    inventory: memoryInventory('sandbox'),
    desired: examples(root),
    selection: SELECT_ALL,
    prune: false,
    maxDeletes: 10,
    concurrency: 4,
    now: () => README_CLOCK,
  };
  const applied = await reconcile(base);
  if (applied.plan.errored || (applied.apply?.summary.failed ?? 0) > 0) throw new Error('the examples did not apply to the sandbox');
  const report = await reconcile({
    ...base,
    mode: 'plan',
    desired: base.desired.map(lowered),
    previews: true,
    backtest: { windowMs: 7 * 86_400_000, window: '7d', budget: 20, perAlert: 10, now: README_CLOCK },
  });
  const out = new Map<string, Buffer>();
  for (const { picture } of await reportPictures(report, { png: true })) {
    if ('skipped' in picture || !picture.png)
      throw new Error(`no picture of ${picture.address}: ${'skipped' in picture ? picture.skipped : ''}`);
    out.set(`quickstart-${picture.base}.png`, picture.png);
  }
  if (out.size === 0) throw new Error(`the quickstart change drew no picture (is ${ALERT} still in config-examples/team?)`);
  return out;
}

/** The quickstart change: the checkout p99 alert at 400 ms instead of 500 (a derived resource carries no digest). */
function lowered(r: DesiredResource): DesiredResource {
  if (r.address !== ALERT) return r;
  const { digest: _digest, ...rest } = r;
  return { ...rest, spec: { ...(r.spec as Record<string, unknown>), threshold: 400 } };
}

/** The team example's dashboards and alerts, as the quickstart applies them (its pipes are hosted-only). */
function examples(root: string): DesiredResource[] {
  const paths = ['dashboards', 'alerts'].map((d) => join(root, 'config-examples', 'team', d));
  const loaded = loadManifests(paths, { env: {} });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`config-examples/team does not load: ${errors.map((e) => e.message).join('; ')}`);
  return loaded.resources;
}
