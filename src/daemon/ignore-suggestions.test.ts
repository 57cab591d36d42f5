/**
 * The daemon's wiring of learned ignore suggestions (issue 48 item 2), in-process on the sandbox's
 * domain: a tile moved in the UI before each of three runs is put back each time, and the third run
 * suggests `tiles[*].x` (event and status) without adding a rule; once the manifest ignores it, the
 * suggestion is gone.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IgnoreRule } from '../core/ignore.js';
import { isJsonObject } from '../core/json.js';
import type { DesiredResource } from '../core/resource.js';
import { SELECT_ALL } from '../engine/selection.js';
import { EventBus } from '../events/bus.js';
import type { ObsyncEvent } from '../events/vocabulary.js';
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
  tiles: [
    { key: 'p99', name: 'p99', x: 0, y: 0, w: 6, h: 4, config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count' }] } },
  ],
};

function dashboard(ignore?: IgnoreRule[]): DesiredResource {
  const doc = { apiVersion: 'obsync/v1', kind: 'Dashboard', metadata: { name: 'checkout' }, spec: SPEC };
  return {
    kind: 'Dashboard',
    name: 'checkout',
    address: 'Dashboard/checkout',
    labels: {},
    spec: specSchemas.Dashboard.parse(structuredClone(SPEC)),
    source: { file: 'checkout.yaml', line: 1, col: 1 },
    digest: documentDigest(doc),
    ...(ignore ? { ignore } : {}),
  };
}

describe('the daemon suggests an ignore rule for a field that keeps drifting', () => {
  it('on the third run that heals a moved tile, as an event and in its status; gone once the field is ignored', async () => {
    const domain = createObservabilityDomain({ seed: 'demo' });
    let now = Date.parse('2026-11-01T00:00:00Z');
    const clock = () => new Date(now);
    const logger = createLogger({ stream: new PassThrough() });
    const events = new EventBus({ logger, levels: 'by-event', now: clock });
    const seen: ObsyncEvent[] = [];
    events.subscribe((e) => seen.push(e));
    let desired = [dashboard()];
    const daemon = new Daemon(
      {
        port: inProcessPort(domain, 'self-hosted', 't'),
        inventory: memoryInventory('t'),
        loadDesired: () => ({ desired, diagnostics: [] }),
        watchPaths: [],
        logger,
        metrics: new DaemonMetrics('test'),
        events,
        identity: { baseUrl: 'http://127.0.0.1:1' },
        now: clock,
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
      },
    );
    const run = async () => {
      daemon.trigger('manual');
      await daemon.idle();
    };
    const moveTile = (x: number) => {
      const listed = domain.listDashboards();
      const live = listed.ok ? listed.value.find((d) => d.name === 'Checkout') : undefined;
      if (!live || typeof live.id !== 'string' || !Array.isArray(live.tiles)) throw new Error('the dashboard was created');
      const tiles = live.tiles.map((t) => (isJsonObject(t) ? { ...t, x } : t));
      domain.updateDashboard(live.id, { ...live, tiles }, 'self-hosted');
    };
    const suggested = () => seen.filter((e) => e.event === 'ignore-suggested');

    await run();
    for (const day of [1, 2, 3]) {
      now += 86_400_000;
      moveTile(day);
      await run();
      expect(seen.filter((e) => e.event === 'healed').length, `day ${day}`).toBe(day);
    }
    expect(suggested()).toHaveLength(1);
    expect(suggested()[0]).toMatchObject({ target: 't', address: 'Dashboard/checkout', path: 'tiles[*].x', times: 3 });
    expect(daemon.status([]).ignoreSuggestions).toMatchObject([{ address: 'Dashboard/checkout', path: 'tiles[*].x', times: 3 }]);

    // Never added by obsync: a fourth move is healed again, and not suggested twice.
    now += 86_400_000;
    moveTile(4);
    await run();
    expect(seen.filter((e) => e.event === 'healed')).toHaveLength(4);
    expect(suggested()).toHaveLength(1);

    // The rule added to the manifest: the moved tile is ignored, and the suggestion is gone.
    desired = [dashboard([{ path: 'tiles[*].x', from: 'metadata.ignore' }])];
    now += 86_400_000;
    moveTile(5);
    await run();
    expect(seen.filter((e) => e.event === 'healed')).toHaveLength(4);
    expect(daemon.status([]).ignoreSuggestions).toEqual([]);
    await daemon.stop();
  });
});
