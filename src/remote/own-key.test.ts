/**
 * Issue 50 item 4: obsync never cuts off its own access. Whatever keys the organisation has and
 * whichever one is named, the hosted keys port never sends a disable or a delete of the key its
 * target authenticates with (its `keySuffix` ends that key id), nor of a key the service does not
 * say the suffix of; every other key is changed as asked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OwnKeyError } from '../core/errors.js';
import type { RequestStats } from '../core/ports.js';
import type { Requester } from './api.js';
import { servicePortOver } from './index.js';
import { responseOf } from './response.js';
import type { RequestInit } from './transport-types.js';

const OWN_KEY_ID = 'AbCdEfGhIjKlMnOp1234';

interface Key {
  id: string;
  name: string;
  state: string;
  keySuffix?: string;
}

/** The keys API of one organisation (hosted envelope), recording what it was sent. */
function keysService(keys: Key[]) {
  const sent: RequestInit[] = [];
  const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  const reply = (status: number, result?: unknown) =>
    Promise.resolve(responseOf(status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ status, result }))));
  const requester: Requester = {
    stats,
    close: () => Promise.resolve(),
    request(init) {
      sent.push(init);
      const id = /\/keys\/([^/]+)$/.exec(init.path)?.[1];
      const key = keys.find((k) => k.id === id);
      if (id === undefined) return reply(200, keys);
      if (!key) return reply(404);
      return reply(200, init.method === 'PATCH' ? { ...key, state: 'disabled' } : key);
    },
  };
  const port = servicePortOver(requester, {
    name: 'prod',
    variant: 'hosted',
    keyId: OWN_KEY_ID,
    organizationId: 'org',
    serviceId: 'svc',
    paths: { observability: 'clickstack', pipes: 'clickpipes' },
  });
  return { keys: port.keys, sent };
}

const suffix = fc.oneof(fc.constant(OWN_KEY_ID.slice(-4)), fc.stringMatching(/^[A-Za-z0-9]{4}$/), fc.constant(undefined));
const keyList = fc.uniqueArray(
  fc.record({ id: fc.uuid(), name: fc.stringMatching(/^[a-z]{1,6}$/), state: fc.constant('enabled'), keySuffix: suffix }),
  { minLength: 1, maxLength: 6, selector: (k) => k.id },
);

describe('the hosted keys port', () => {
  it('never sends a disable or delete of the key it authenticates with, or of one it cannot tell apart (property)', async () => {
    await fc.assert(
      fc.asyncProperty(keyList, fc.nat(), fc.constantFrom('disable', 'enable', 'delete'), async (raw, pick, verb) => {
        const keys = raw.map(({ keySuffix, ...k }): Key => (keySuffix === undefined ? k : { ...k, keySuffix }));
        const key = keys[pick % keys.length] as Key;
        const { keys: port, sent } = keysService(keys);
        if (!port) throw new Error('no keys port');
        const own = key.keySuffix === undefined || OWN_KEY_ID.endsWith(key.keySuffix);
        const change =
          verb === 'delete' ? port.delete(key.id) : port.update(key.id, { state: verb === 'disable' ? 'disabled' : 'enabled' });
        const outcome = await change.then(
          () => 'sent',
          (err: unknown) => err,
        );
        const writes = sent.filter((r) => r.method !== 'GET');
        if (own && verb !== 'enable') {
          expect(outcome).toBeInstanceOf(OwnKeyError);
          expect((outcome as OwnKeyError).hint).toMatch(/^point the target at another key first/);
          expect(writes).toEqual([]);
        } else {
          expect(outcome).toBe('sent');
          expect(writes.map((r) => r.method)).toEqual([verb === 'delete' ? 'DELETE' : 'PATCH']);
        }
      }),
      { numRuns: 200 },
    );
  });
});
