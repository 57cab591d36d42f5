/**
 * One pull request (GitHub) or merge request (GitLab) per target, opened, updated as the drift
 * changes, closed when it is gone — against loopback fakes that hold every request to the shapes
 * the forges document (test/support/fake-forge.ts), with a real Git remote beside them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WriteBackSettings } from '../../src/config/write-back.js';
import { Secret } from '../../src/core/secret.js';
import { proposerFor } from '../../src/proposals/index.js';
import { fakeForge } from '../support/fake-forge.js';
import { makeRemote } from '../support/git-repos.js';

const DASH = 'kind: Dashboard\nspec:\n  tiles:\n    - {key: p99, x: 0}\n';
const remote = makeRemote({ 'dashboards.yaml': DASH });
const state = mkdtempSync(join(tmpdir(), 'obsync-forge-state-'));
afterAll(() => {
  remote.dispose();
  rmSync(state, { recursive: true, force: true });
});

const files = (x: number) => [{ file: 'dashboards.yaml', before: DASH, after: DASH.replace('x: 0', `x: ${x}`) }];

describe.each(['github', 'gitlab'] as const)('%s', (type) => {
  const token = `${type}-api-token-0123456789abcdef`;
  const project = type === 'github' ? 'acme/observability' : 'acme/platform/observability';

  it('opens one request per target, updates it as the drift changes, and closes it when the drift is gone', async () => {
    const forge = await fakeForge(type, { token, project });
    const settings: WriteBackSettings = {
      target: type,
      repository: remote.url,
      branch: 'main',
      path: '',
      author: { name: 'obsync', email: 'obsync@localhost' },
      forge: { type, apiUrl: forge.apiUrl, project, token: new Secret(token) },
      proposalBranch: `obsync/propose/${type}`,
      cloneDir: join(state, type),
      localRoot: '/m',
    };
    const { proposer, dispose } = proposerFor(settings, {
      path: process.env.PATH,
      home: '/nonexistent',
      now: () => Date.parse('2026-11-29T09:00:00Z'),
    });
    try {
      const opened = await proposer.propose({ files: files(6), body: 'Plan: 0 to create, 1 to update', objects: ['Dashboard/checkout'] });
      expect(opened).toMatchObject({ status: 'opened', branch: `obsync/propose/${type}`, ageSeconds: 3600 });
      expect(opened.openedAt).toMatch(/^2026-11-29T08:00:00/);
      expect(opened.url).toMatch(type === 'github' ? /\/pull\/1$/ : /\/merge_requests\/1$/);
      expect(forge.stored).toMatchObject([
        {
          head: `obsync/propose/${type}`,
          base: 'main',
          open: true,
          title: 'obsync: Dashboard/checkout changed on the service (' + type + ')',
        },
      ]);

      const same = await proposer.propose({ files: files(6), body: 'Plan: 0 to create, 1 to update', objects: ['Dashboard/checkout'] });
      expect(same.status).toBe('unchanged');
      const writes = () => forge.requests.filter((r) => r.method !== 'GET').length;
      expect(writes()).toBe(1);

      // The body passes the one scrubber: a token that reached it is masked.
      const updated = await proposer.propose({ files: files(7), body: `Plan: 1 to update ${token}`, objects: ['Dashboard/checkout'] });
      expect(updated).toMatchObject({ status: 'updated', url: opened.url });
      expect(forge.stored).toHaveLength(1);
      expect(forge.stored[0]?.body).toMatch(/^Plan: 1 to update ?\(sensitive\)$/);
      expect(remote.show(`obsync/propose/${type}`, 'dashboards.yaml')).toContain('x: 7');

      const closed = await proposer.propose({ files: [], body: '', objects: [] });
      expect(closed.status).toBe('closed');
      expect(forge.stored[0]?.open).toBe(false);
      expect(remote.tip(`obsync/propose/${type}`)).toBeUndefined();

      expect(forge.violations).toEqual([]);
      for (const r of forge.requests) expect(JSON.stringify({ path: r.path, body: r.body })).not.toContain(token);
    } finally {
      await dispose();
      await forge.close();
    }
  });

  it('says what to check when the token is refused, without the token', async () => {
    const forge = await fakeForge(type, { token, project });
    forge.failWith(401);
    const settings: WriteBackSettings = {
      target: `${type}-refused`,
      repository: remote.url,
      branch: 'main',
      path: '',
      author: { name: 'obsync', email: 'obsync@localhost' },
      forge: { type, apiUrl: forge.apiUrl, project, token: new Secret(token) },
      proposalBranch: `obsync/propose/${type}-refused`,
      cloneDir: join(state, `${type}-refused`),
      localRoot: '/m',
    };
    const { proposer, dispose } = proposerFor(settings, { path: process.env.PATH, home: '/nonexistent' });
    try {
      const failure = proposer.propose({ files: files(9), body: 'b', objects: ['Dashboard/checkout'] });
      await expect(failure).rejects.toMatchObject({ code: 'FORGE' });
      await expect(failure).rejects.toHaveProperty('hint', expect.stringMatching(/writeBack\.forge\.token/) as unknown);
      await expect(failure).rejects.toThrow(/answered 401/);
      await expect(failure).rejects.not.toThrow(token);
    } finally {
      await dispose();
      await forge.close();
    }
  });
});
