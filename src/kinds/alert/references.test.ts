import { describe, expect, it } from 'vitest';
import { wireAlert } from '../../core/wire.js';
import { alert } from './definition.js';

const live = (more: object) =>
  wireAlert.parse({
    id: 'a1',
    source: 'tile',
    dashboardId: 'd1',
    tileId: 't1',
    threshold: 1,
    thresholdType: 'above',
    interval: '5m',
    ...more,
  });

describe('what an alert refers to', () => {
  it('names its tile, saved search and every webhook it notifies', () => {
    const refs = alert.liveRefs?.(
      live({
        channels: [
          { type: 'webhook', webhookId: 'w1' },
          { type: 'webhook', webhookId: 'w2' },
        ],
      }),
    );
    expect(refs).toEqual([
      { kind: 'Dashboard', id: 'd1', part: 't1' },
      { kind: 'Webhook', id: 'w1' },
      { kind: 'Webhook', id: 'w2' },
    ]);
    const search = alert.liveRefs?.(live({ source: 'saved_search', savedSearchId: 's1', dashboardId: null, tileId: null }));
    expect(search).toEqual([{ kind: 'SavedSearch', id: 's1' }]);
  });

  it('holds only its first webhook against a delete: the service counts the legacy channel mirror (409)', () => {
    const body = {
      channels: [
        { type: 'webhook', webhookId: 'w1' },
        { type: 'webhook', webhookId: 'w2' },
      ],
    };
    expect(alert.holds?.(body)).toEqual([{ kind: 'Webhook', id: 'w1' }]);
    expect(alert.holds?.({ channel: { type: 'webhook', webhookId: 'w3' }, ...body })).toEqual([{ kind: 'Webhook', id: 'w3' }]);
    expect(alert.holds?.({ channels: [{ type: 'webhook', webhookId: { $ref: 'Webhook/x' } }] })).toEqual([]);
  });
});
