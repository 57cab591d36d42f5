/**
 * Write-back's Git side against real repositories (issue 41): obsync's own bare clone under the
 * state directory, one branch per target, commits by the configured author, merged onto a base
 * that moved, and never a push over a commit obsync did not make — found before (foreign commits)
 * or racing it (the lease). One remote for the whole file; each test starts from its main.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { WriteBackSettings } from '../../src/config/write-back.js';
import { Secret } from '../../src/core/secret.js';
import { gitRunner, type Git } from '../../src/proposals/git.js';
import { BranchMovedError, ForeignCommitsError, proposerFor } from '../../src/proposals/index.js';
import { createProposer } from '../../src/proposals/proposer.js';
import { git, makeRemote, serveOverHttp } from '../support/git-repos.js';

const DASH =
  'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: checkout}\nspec:\n  name: Checkout\n  tiles:\n    - key: p99\n      x: ' +
  '0\n      y: 0\n';
const MOVED = DASH.replace('      x: 0\n', '      x: 6\n');
const OTHER = 'apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: slow}\nspec: {threshold: 500}\n';

const remote = makeRemote({ 'envs/prod/dashboards.yaml': DASH, 'envs/prod/alerts.yaml': OTHER, 'README.md': 'hello\n' });
const someone = remote.clone('someone');
const seedTip = remote.tip('main') ?? '';
const state = mkdtempSync(join(tmpdir(), 'obsync-state-'));
afterAll(() => {
  remote.dispose();
  rmSync(state, { recursive: true, force: true });
});

const settingsFor = (over: Partial<WriteBackSettings> = {}): WriteBackSettings => ({
  target: 'prod',
  repository: remote.url,
  branch: 'main',
  path: 'envs/prod',
  author: { name: 'obsync bot', email: 'bot@example.com' },
  forge: { type: 'none', apiUrl: '', project: '', token: undefined },
  proposalBranch: 'obsync/propose/prod',
  cloneDir: join(state, 'write-back', 'prod'),
  localRoot: '/manifests',
  ...over,
});
const environment = { path: process.env.PATH, home: '/nonexistent' };
const request = (after = MOVED, before = DASH) => ({
  files: [{ file: '/manifests/dashboards.yaml', before, after }],
  body: 'plan',
  objects: ['Dashboard/checkout'],
});
const BRANCH = 'obsync/propose/prod';

beforeEach(() => {
  // Each test starts from the seed: main back at its first commit, no proposal branch.
  git(remote.bare, 'update-ref', 'refs/heads/main', seedTip);
  if (remote.tip(BRANCH)) git(remote.bare, 'update-ref', '-d', `refs/heads/${BRANCH}`);
  git(someone, 'fetch', '--quiet', 'origin');
  git(someone, 'reset', '--quiet', '--hard', 'origin/main');
});

describe('a proposal branch', () => {
  it('is one commit by the configured author on the base, with the new text; the same request again pushes nothing', async () => {
    const { proposer } = proposerFor(settingsFor(), environment);
    const first = await proposer.propose(request());
    expect(first).toMatchObject({ status: 'opened', branch: BRANCH, url: undefined, objects: ['Dashboard/checkout'], conflicts: [] });
    expect(remote.tip(BRANCH)).toBe(first.commit);
    expect(remote.show(BRANCH, 'envs/prod/dashboards.yaml')).toBe(MOVED);
    expect(git(remote.bare, 'log', '--format=%P|%an <%ae>|%cn', `main..${BRANCH}`)).toBe(
      `${seedTip}|obsync bot <bot@example.com>|obsync bot`,
    );
    expect(git(remote.bare, 'log', '-1', '--format=%B', BRANCH)).toMatch(/Dashboard\/checkout[\s\S]*Obsync-Target: prod\nObsync-Opened: /);
    // Only the proposed file differs from the base.
    expect(git(remote.bare, 'diff', '--name-only', 'main', BRANCH)).toBe('envs/prod/dashboards.yaml');
    const again = await proposer.propose(request());
    expect(again).toMatchObject({ status: 'unchanged', commit: first.commit, openedAt: first.openedAt });
  });

  it('follows a base that moved: re-made on its tip, a change to other lines of the same file kept', async () => {
    const { proposer } = proposerFor(settingsFor(), environment);
    const first = await proposer.propose(request());
    const renamed = DASH.replace('name: Checkout', 'name: Checkout service');
    const moved = remote.commitFiles(someone, { 'envs/prod/dashboards.yaml': renamed, 'README.md': 'hello again\n' }, 'rename');
    const next = await proposer.propose(request());
    expect(next.status).toBe('updated');
    expect(next.openedAt).toBe(first.openedAt);
    expect(git(remote.bare, 'log', '--format=%P', `main..${BRANCH}`)).toBe(moved);
    expect(remote.show(BRANCH, 'envs/prod/dashboards.yaml')).toBe(MOVED.replace('name: Checkout', 'name: Checkout service'));
    expect(git(remote.bare, 'diff', '--name-only', 'main', BRANCH)).toBe('envs/prod/dashboards.yaml');
  });

  it('leaves out a file whose same lines changed in Git, naming it, and picks no side', async () => {
    const { proposer } = proposerFor(settingsFor(), environment);
    remote.commitFiles(someone, { 'envs/prod/dashboards.yaml': DASH.replace('      x: 0\n', '      x: 3\n') }, 'moved in git');
    const out = await proposer.propose(request());
    expect(out.status).toBe('conflicted');
    expect(out.conflicts.map((c) => `${c.file}: ${c.message}`)).toEqual([
      'envs/prod/dashboards.yaml: the same lines changed in Git since obsync read the file, and on the service',
    ]);
    expect(remote.tip(BRANCH)).toBeUndefined();
  });

  it('is left alone when it holds a commit obsync did not make', async () => {
    const { proposer } = proposerFor(settingsFor(), environment);
    await proposer.propose(request());
    git(someone, 'fetch', '--quiet', 'origin', `${BRANCH}:refs/remotes/origin/${BRANCH}`);
    git(someone, 'checkout', '--quiet', '-B', 'review', `origin/${BRANCH}`);
    const theirs = remote.commitFiles(someone, { 'envs/prod/alerts.yaml': OTHER.replace('500', '600') }, 'a reviewer fix', BRANCH);
    git(someone, 'checkout', '--quiet', 'main');
    const refused = proposer.propose(request(MOVED.replace('y: 0', 'y: 4')));
    await expect(refused).rejects.toBeInstanceOf(ForeignCommitsError);
    await expect(refused).rejects.toThrow(/holds commits obsync did not make \(\w{12} by Someone Else <someone@example.com>\)/);
    expect(remote.tip(BRANCH)).toBe(theirs);
  });

  it('is not pushed over a commit pushed while obsync was making its own (the lease)', async () => {
    const settings = settingsFor();
    const real = gitRunner({ cwd: settings.cloneDir, path: environment.path, home: environment.home, author: settings.author });
    let theirs: string | undefined;
    const racing: Git = async (args, call) => {
      if (args[0] === 'push' && theirs === undefined) {
        git(someone, 'checkout', '--quiet', '-B', 'race', 'origin/main');
        theirs = remote.commitFiles(someone, { 'notes.md': 'mine\n' }, 'someone took the branch name', BRANCH);
        git(someone, 'checkout', '--quiet', 'main');
      }
      return real(args, call);
    };
    const proposer = createProposer({ settings, git: racing, forge: undefined });
    await expect(proposer.propose(request())).rejects.toBeInstanceOf(BranchMovedError);
    expect(remote.tip(BRANCH)).toBe(theirs);
  });

  it('is deleted once nothing is left to propose (the drift is gone, or was merged)', async () => {
    const { proposer } = proposerFor(settingsFor(), environment);
    await proposer.propose(request());
    remote.commitFiles(someone, { 'envs/prod/dashboards.yaml': MOVED }, 'merged by hand');
    const merged = await proposer.propose(request());
    expect(merged.status).toBe('closed');
    expect(remote.tip(BRANCH)).toBeUndefined();
    expect((await proposer.propose({ ...request(), files: [] })).status).toBe('none');
  });
});

describe('the token', () => {
  it('reaches the Git server as a header, and never the arguments, the URL or a file of the clone', async () => {
    const token = 'gho_push-token-for-write-back-42';
    const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
    const http = await serveOverHttp(remote, basic);
    const wrapper = join(state, 'git-wrapper.sh');
    const argvLog = join(state, 'argv.log');
    writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvLog}'\nexec git "$@"\n`, { mode: 0o755 });
    try {
      const settings = settingsFor({
        repository: http.url,
        cloneDir: join(state, 'write-back', 'over-http'),
        forge: { type: 'none', apiUrl: '', project: '', token: new Secret(token) },
      });
      const auth = { repository: http.url, header: new Secret(basic) };
      const run = gitRunner({
        cwd: settings.cloneDir,
        path: environment.path,
        home: '/nonexistent',
        author: settings.author,
        auth,
        executable: wrapper,
      });
      const { mkdirSync } = await import('node:fs');
      mkdirSync(settings.cloneDir, { recursive: true });
      const out = await createProposer({ settings, git: run, forge: undefined }).propose(request());
      expect(out.status).toBe('opened');
      expect(remote.tip(BRANCH)).toBe(out.commit);
      expect(http.seen.some((s) => s.startsWith(`${basic} POST /remote.git/git-receive-pack`))).toBe(true);
      const argv = readFileSync(argvLog, 'utf8');
      expect(argv).toContain('push');
      for (const form of [token, basic.slice(6)]) {
        expect(argv).not.toContain(form);
        for (const file of filesUnder(settings.cloneDir)) expect(readFileSync(file, 'latin1'), file).not.toContain(form);
      }
    } finally {
      await http.close();
    }
  });

  it('is refused by the server when missing, and the error names no secret', async () => {
    const http = await serveOverHttp(remote, 'Basic never-sent');
    try {
      const settings = settingsFor({ repository: http.url, cloneDir: join(state, 'write-back', 'no-token') });
      await expect(proposerFor(settings, environment).proposer.propose(request())).rejects.toThrow(/git fetch failed/);
    } finally {
      await http.close();
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile());
}
