/**
 * `obsync run --no-previews` (DaemonOptions.previews: false): the daemon draws no picture of its
 * last plan — the status lists none and the renderer is never asked — while the default draws a
 * preview of each dashboard the plan creates. In-process on the sandbox's domain.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../core/resource.js';
import { SELECT_ALL } from '../engine/selection.js';
import { EventBus } from '../events/bus.js';
import { memoryInventory } from '../inventory/memory-store.js';
import { specSchemas } from '../kinds/manifest.js';
import { createLogger } from '../log/logger.js';
import { documentDigest } from '../manifests/document.js';
import { createObservabilityDomain } from '../sandbox/domain/index.js';
import { inProcessPort } from '../sandbox/in-process-port.js';
import { Daemon } from './daemon.js';
import { DaemonMetrics } from './metrics.js';

const SPEC = {
  name: 'Checkout',
  tiles: [{ key: 'n', name: 'n', x: 0, y: 0, w: 6, h: 4, config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count' }] } }],
};
const DASHBOARD: DesiredResource = {
  kind: 'Dashboard',
  name: 'checkout',
  address: 'Dashboard/checkout',
  labels: {},
  spec: specSchemas.Dashboard.parse(structuredClone(SPEC)),
  source: { file: 'checkout.yaml', line: 1, col: 1 },
  digest: documentDigest({ apiVersion: 'obsync/v1', kind: 'Dashboard', metadata: { name: 'checkout' }, spec: SPEC }),
};

async function firstRun(previews: boolean | undefined) {
  const logger = createLogger({ stream: new PassThrough() });
  const daemon = new Daemon(
    {
      port: inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 't'),
      inventory: memoryInventory('t'),
      loadDesired: () => ({ desired: [DASHBOARD], diagnostics: [] }),
      watchPaths: [],
      logger,
      metrics: new DaemonMetrics('test'),
      events: new EventBus({ logger, levels: 'by-event' }),
      identity: { baseUrl: 'http://127.0.0.1:1' },
    },
    {
      mode: 'apply',
      schedule: '0 0 1 1 *',
      jitterMs: 0,
      prune: false,
      maxDeletes: 10,
      concurrency: 2,
      selection: SELECT_ALL,
      shutdownMs: 1000,
      ...(previews === undefined ? {} : { previews }),
    },
  );
  daemon.trigger('manual');
  await daemon.idle();
  return daemon;
}

describe('the status pictures of a daemon', () => {
  it('draws a preview of a created dashboard by default, and nothing with previews: false', async () => {
    const drawn = await firstRun(undefined);
    expect(drawn.status([]).previews).toEqual([
      expect.objectContaining({ address: 'Dashboard/checkout', url: expect.stringMatching(/^\/targets\/t\/previews\/.+\.svg$/) }),
    ]);
    const off = await firstRun(false);
    expect(off.status([]).previews ?? []).toEqual([]);
  });
});
