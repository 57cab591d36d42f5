import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure } from './test-helpers.js';

describe('validation messages in zod 3’s words, as the real server (zod 3.25) writes them', () => {
  it('says Required, names enum options and bounds like zod 3', () => {
    const d = demoDomain();
    expect(failure(d.createConnection({})).message).toBe('Body validation failed: name: Required; host: Required; username: Required');
    const tile = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      name: 'D',
      tiles: [{ name: 't', x: 0, y: 0, w: 6, h: 4, config, ...extra }],
    });
    expect(
      failure(
        d.createDashboard(tile({ displayType: 'line', sourceId: DEMO_IDS.logs, select: [{ aggFn: 'count' }] }, { x: 30 }), 'self-hosted'),
      ).message,
    ).toBe('Body validation failed: tiles.0.x: Number must be less than or equal to 23');
    expect(failure(d.createDashboard(tile({ displayType: 'gauge', sourceId: DEMO_IDS.logs }), 'self-hosted')).message).toBe(
      "Body validation failed: tiles.0.config.displayType: Invalid discriminator value. Expected 'line' | " +
        "'stacked_bar' | 'table' | 'number' | 'pie' | 'bar' | 'heatmap' | 'markdown' | 'search' | " +
        "'event_patterns'",
    );
    expect(failure(d.createWebhook({ name: 'w', service: 'teams', url: 'https://example.com' })).message).toBe(
      "Body validation failed: service: Invalid enum value. Expected 'slack' | 'generic' | 'incidentio', received 'teams'",
    );
    expect(failure(d.createWebhook({ name: 'x'.repeat(1025), service: 'generic', url: 'https://example.com' })).message).toBe(
      'Body validation failed: name: String must contain at most 1024 character(s)',
    );
  });
});
