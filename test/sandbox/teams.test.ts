/** Further self-hosted teams (`startSandbox({ teams })`): own key, own objects, persisted with --data. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

const handles: SandboxHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

async function start(opts: SandboxOptions): Promise<SandboxHandle> {
  const h = await startSandbox({ port: 0, rateLimit: 'off', ...opts });
  handles.push(h);
  return h;
}

const call = (h: SandboxHandle, key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${h.url}/api/v2${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe('sandbox teams', () => {
  it('gives each key its own team, user and objects, and keeps another team’s objects after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-teams-'));
    try {
      const first = await start({ dataDir: dir, teams: [{ apiKey: 'second-key', name: 'Second' }] });
      const created = (await (
        await call(first, 'second-key', '/webhooks', {
          method: 'POST',
          body: { name: 'w', service: 'generic', url: 'https://example.com/w' },
        })
      ).json()) as { data: { id: string } };
      const mine = (await (await call(first, first.credentials.apiKey, '/webhooks')).json()) as { data: { id: string }[] };
      expect(mine.data.map((w) => w.id)).not.toContain(created.data.id);
      const team = (await (await call(first, 'second-key', '/team')).json()) as { data: { name: string } };
      expect(team.data.name).toBe('Second');
      const whoA = (await (await call(first, first.credentials.apiKey, '')).json()) as { user: { _id: string } };
      const whoB = (await (await call(first, 'second-key', '')).json()) as { user: { _id: string } };
      expect(whoA.user._id).not.toBe(whoB.user._id);
      expect((await call(first, 'third-key', '/webhooks')).status).toBe(401);
      await first.close();
      handles.splice(0);

      const second = await start({ dataDir: dir, teams: [{ apiKey: 'second-key' }] });
      const kept = (await (await call(second, 'second-key', '/webhooks')).json()) as { data: { id: string }[] };
      expect(kept.data.map((w) => w.id)).toEqual([created.data.id]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox self-hosted routing (Express: case-insensitive, trailing slash)', () => {
  it('serves /API/V2/Dashboards/ and an upper-case id like the lower-case paths', async () => {
    const h = await start({ seed: 'none' });
    const key = h.credentials.apiKey;
    const created = (await (await call(h, key, '/dashboards', { method: 'POST', body: { name: 'D', tiles: [] } })).json()) as {
      data: { id: string };
    };
    const list = await fetch(`${h.url}/API/V2/Dashboards/`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: { id: string }[] }).data.map((d) => d.id)).toEqual([created.data.id]);
    expect((await call(h, key, `/dashboards/${created.data.id.toUpperCase()}`)).status).toBe(200);
  });
});
