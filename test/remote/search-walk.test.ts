/**
 * Issue 49 item 3, obsync's side: the self-hosted port's search walk against the sandbox over
 * loopback follows the cursor through every time window (short pages included) and reads the
 * same rows one offset request reads; a read-only command may search; the budget ends a walk as
 * incomplete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY } from '../../src/core/fence.js';
import { requireCapability, type SearchPort, type SearchQuery } from '../../src/core/ports.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

let sandbox: SandboxHandle;
let search: SearchPort;
const END = Math.floor(Date.now() / 60_000) * 60_000;
const QUERY: SearchQuery = {
  sourceId: DEMO_IDS.logs,
  startTime: new Date(END - 3 * 3600_000).toISOString(),
  endTime: new Date(END).toISOString(),
  where: '',
  whereLanguage: 'lucene',
  select: 'TimestampTime, Body',
  maxResults: 50,
};

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  const port = createServicePort(
    {
      name: 'search',
      variant: 'self-hosted',
      baseUrl: sandbox.url,
      apiKey: new Secret(sandbox.credentials.apiKey),
      concurrency: 1,
      timeoutMs: 20_000,
      retries: 0,
      pacing: { limit: 0, windowMs: 1000 },
      embedded: false,
    },
    { fence: READ_ONLY },
  );
  search = requireCapability(port, 'search');
});

afterAll(async () => {
  await sandbox?.close();
});

describe('a search walk against the sandbox', () => {
  it('reads every row of a 3-hour range by cursor, as one offset request answers them, under a read-only fence', async () => {
    const res = await fetch(`${sandbox.url}/api/v2/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...QUERY, maxResults: 500 }),
    });
    const whole = ((await res.json()) as { data: unknown[] }).data;
    expect(whole).toHaveLength(180);

    const out = await search.rows(QUERY, { maxRequests: 20 });
    // Window 0 (15 min): one short page of 15; window 1 (6 h, the other 165 rows): 50, 50, 50, 15.
    expect(out).toMatchObject({ complete: true, requests: 5 });
    expect(out.rows).toEqual(whole);
  });

  it('ends a walk at the budget as incomplete', async () => {
    const out = await search.rows(QUERY, { maxRequests: 2 });
    expect(out).toMatchObject({ complete: false, requests: 2 });
    expect(out.rows).toHaveLength(65);
  });
});
