/**
 * Issue 53 item 7: ids from the service are held to their form at the edge, and every value in a
 * request path is one encoded segment. A list holding a hostile id (`..`, a slash, a control,
 * bidi or zero-width character, an empty or huge id) is refused whole, so no such id is owned,
 * planned or put into a path; and whatever value reaches a path, the path keeps its segments: a
 * pipe listed as `..` can never become `PATCH …/clickpipes/../state` (the service's own stop call
 * once a front end resolves it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors.js';
import type { RequestStats } from '../core/ports.js';
import { REGISTRY, type AnyKind } from '../kinds/registry.js';
import type { Requester } from './api.js';
import { servicePortOver } from './index.js';
import { apiPath, CONTROL, PathSegmentError } from './paths.js';
import { responseOf } from './response.js';
import type { RequestInit } from './transport-types.js';

/** The smallest object each kind's live schema accepts, with the id given. */
const MINIMAL: Record<AnyKind, (id: string) => Record<string, unknown>> = {
  Dashboard: (id) => ({ id, name: 'd', tiles: [] }),
  Alert: (id) => ({ id, source: 'tile', threshold: 1, thresholdType: 'above', interval: '5m' }),
  Pipe: (id) => ({ id, name: 'p', state: 'Running', source: {} }),
  Source: (id) => ({ id, name: 's', kind: 'log' }),
  Webhook: (id) => ({ id, name: 'w', service: 'generic' }),
  SavedSearch: (id) => ({ id, name: 's' }),
  Connection: (id) => ({ id, name: 'c', host: 'http://localhost:8123', username: 'default' }),
  TeamMember: (id) => ({ id, email: 'a@example.com' }),
  Role: (id) => ({ id, name: 'r', permissions: [] }),
  TeamSettings: (id) => ({ id, name: 't', defaultUserRole: null }),
  PipeSshKey: (id) => ({ id, name: 'k', host: 'bastion.example.com', username: 'u' }),
};

const LOCATION = {
  name: 't',
  variant: 'hosted' as const,
  keyId: 'kid',
  organizationId: '1f6ca2a4-0000-4000-8000-000000000001',
  serviceId: '1f6ca2a4-0000-4000-8000-000000000002',
  paths: { observability: 'clickstack', pipes: 'clickpipes' },
};

/** A service that lists `items` for every collection (in the variant's envelope) and records what it was sent. */
function listing(variant: 'hosted' | 'self-hosted', items: unknown[]) {
  const sent: RequestInit[] = [];
  const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  const requester: Requester = {
    stats,
    close: () => Promise.resolve(),
    request(init) {
      sent.push(init);
      const body = variant === 'hosted' ? { status: 200, result: items } : { data: items };
      return Promise.resolve(responseOf(200, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(body))));
    },
  };
  const port = variant === 'hosted' ? servicePortOver(requester, LOCATION) : servicePortOver(requester, { name: 't', variant });
  return { port, sent };
}

/** Ids a hostile or broken service may list. */
const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '.', '..', '...', '../state', 'a/b', 'a\\b', 'a?b', 'a#b', 'a b', '%2e%2e', 'x\u0000', 'x\n', 'x\u202e', 'x\u200b'),
  fc.constantFrom('.', '..').chain((dots) => fc.constant(dots)),
  fc.string({ minLength: 1, maxLength: 8 }).map((s) => `${s}\u0000`),
  fc
    .integer({ min: 0, max: 0x9f })
    .filter((c) => c < 0x20 || c >= 0x7f)
    .map((c) => `id${String.fromCharCode(c)}`),
  fc.stringMatching(/^\.{1,5}$/),
  fc.string({ minLength: 201, maxLength: 260, unit: fc.constantFrom('a', '0') }),
  fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }).filter((s) => [...s].some((c) => c.charCodeAt(0) > 0x7f)),
);

const realId = fc.oneof(fc.stringMatching(/^[0-9a-f]{24}$/), fc.uuid());

describe('ids from the service are checked at the edge', () => {
  it('a list holding a hostile id is refused whole, for every kind of both variants, and nothing but the read is sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'hosted' | 'self-hosted'>('hosted', 'self-hosted'),
        fc.constantFrom(...REGISTRY.map((d) => d.kind)),
        fc.array(realId, { maxLength: 3 }),
        hostileId,
        fc.nat(),
        async (variant, kind, fine, bad, at) => {
          const ids = [...fine];
          ids.splice(at % (ids.length + 1), 0, bad);
          const { port, sent } = listing(variant, ids.map(MINIMAL[kind]));
          const collection = port.collection(kind);
          if (!collection) return;
          const read = await collection.list().then(
            () => null,
            (err: unknown) => err,
          );
          expect(read, `listed ${JSON.stringify(bad)}`).toBeInstanceOf(ApiError);
          expect((read as ApiError).code).toBe('API_RESPONSE');
          expect(sent.every((r) => r.method === 'GET')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('real ids (ObjectIds, UUIDs) pass', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...REGISTRY.map((d) => d.kind)), fc.array(realId, { maxLength: 4 }), async (kind, ids) => {
        const { port } = listing('hosted', ids.map(MINIMAL[kind]));
        const listed = await port.collection(kind)?.list();
        if (listed) expect(listed.map((o) => o.id)).toEqual(ids);
      }),
    );
  });
});

describe('every value in a request path is one segment', () => {
  it('a path keeps its segments whatever a value holds, also through a resolving front end; dots only and controls are refused', () => {
    fc.assert(
      fc.property(fc.oneof(hostileId, fc.string({ unit: 'binary' }), realId), (value) => {
        let path: string;
        try {
          path = apiPath('v1', value, 'state');
        } catch (err) {
          expect(err).toBeInstanceOf(PathSegmentError);
          expect(value === '' || /^\.+$/.test(value) || CONTROL.test(value)).toBe(true);
          return;
        }
        const parts = path.split('/');
        expect(parts).toHaveLength(4);
        expect(decodeURIComponent(parts[2] ?? '')).toBe(value.replace(/\p{Cs}/gu, '\ufffd'));
        // A front end that resolves dot segments (the WHATWG URL parser decodes %2E first) changes nothing.
        expect(new URL(path, 'http://service.invalid').pathname).toBe(path);
      }),
      { numRuns: 200 },
    );
  });

  it('a pipe call with the id `..` is refused before anything is sent', async () => {
    const { port, sent } = listing('hosted', []);
    const pipes = port.collection('Pipe');
    await expect(pipes?.call('state', '..', { command: 'stop' })).rejects.toBeInstanceOf(PathSegmentError);
    await expect(pipes?.delete('.')).rejects.toBeInstanceOf(PathSegmentError);
    expect(sent).toEqual([]);
  });
});
