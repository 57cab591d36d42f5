import { describe, expect, it } from 'vitest';
import { scrub } from '../core/scrub.js';
import { loadConfig } from './load.js';
import { effectiveDrift, resolveWriteBack } from './write-back.js';

const files = (map: Record<string, string>) => (p: string) => {
  const text = map[p];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
  return text;
};

const head = 'apiVersion: obsync/v1\nkind: Config\n';
const target = '  - name: prod\n    variant: self-hosted\n    baseUrl: http://127.0.0.1:8000\n';
const load = (text: string, env: Record<string, string> = {}) =>
  loadConfig('/repo/obsync.yaml', env, { readFile: files({ '/repo/obsync.yaml': head + text }) });
const errors = (text: string, env: Record<string, string> = {}) =>
  load(text, env).diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`);

describe('drift and writeBack in obsync.yaml', () => {
  it('takes a target over the defaults, field by field, and resolves the token as a secret', () => {
    const token = 'ghp_write-back-token-0123456789';
    const out = load(
      'defaults:\n  drift: propose\n  writeBack:\n    repository: file:///srv/manifests.git\n    author: {name: Bot, email: ' +
        'bot@example.com}\n    forge: {type: github, project: acme/obs}\n' +
        `targets:\n${target}    writeBack:\n      path: envs/prod\n      author: {email: prod-bot@example.com}\n      forge: ` +
        `{token: "\${env:GH_TOKEN}"}\n`,
      { GH_TOKEN: token },
    );
    expect(out.diagnostics.map((d) => `${d.severity} ${d.line}:${d.col} ${d.code}`)).toEqual([]);
    const [prod] = out.config?.targets ?? [];
    if (!prod) throw new Error('no target');
    expect(effectiveDrift(prod, out.config?.defaults)).toBe('propose');
    const settings = resolveWriteBack({
      target: prod,
      defaults: out.config?.defaults,
      env: {},
      readFile: files({}),
      stateDir: '/state',
      baseDir: '/repo',
    });
    expect(settings).toMatchObject({
      repository: 'file:///srv/manifests.git',
      branch: 'main',
      path: 'envs/prod',
      author: { name: 'Bot', email: 'prod-bot@example.com' },
      forge: { type: 'github', apiUrl: 'https://api.github.com', project: 'acme/obs' },
      proposalBranch: 'obsync/propose/prod',
      cloneDir: '/state/write-back/prod',
      localRoot: '/repo',
    });
    // The token is a credential: in the values no other field may carry, printed as (sensitive), masked by the one scrubber.
    expect(out.sensitive.map((s) => s.value)).toContain(token);
    expect(JSON.stringify(settings)).not.toContain(token);
    expect(scrub(`push with ${token}`)).toBe('push with (sensitive)');
  });

  it('names the line of a propose without a repository, a forge without its project, and a bad repository URL', () => {
    expect(errors(`targets:\n${target}    drift: propose\n`)).toEqual([
      "7:5 targets[0].drift target 'prod' has drift: propose but no writeBack.repository (set it on the target or under defaults)",
    ]);
    expect(
      errors(`defaults: {drift: propose, writeBack: {repository: "file:///r.git", forge: {type: gitlab}}}\ntargets:\n${target}`),
    ).toEqual(["3:12 defaults.drift target 'prod': writeBack.forge.type gitlab needs writeBack.forge.project (OWNER/NAME)"]);
    expect(errors(`targets:\n${target}    writeBack: {repository: "https://user:tok@git.example.com/r.git"}\n`)).toEqual([
      '7:17 targets[0].writeBack.repository the repository URL must not hold credentials (a token or password): give the token as ' +
        'writeBack.forge.token',
    ]);
    expect(errors(`targets:\n${target}    writeBack: {include: "tag=gitops,Dashbord"}\n`)).toEqual([
      '7:17 targets[0].writeBack.include a selector of objects made on the service: Dashbord is not a kind obsync manages (one of ' +
        'Connection, Source, Dashboard, SavedSearch, Webhook, Alert, PipeSshKey, Pipe, Role, TeamMember, TeamSettings)',
    ]);
    expect(errors(`targets:\n${target}    drift: heal\n`)).toEqual([
      "7:5 targets[0].drift invalid value 'heal' — expected one of: revert, report, propose",
    ]);
    expect(
      errors(`targets:\n${target}    writeBack: {branch: "../main", path: "../up"}\n`).map((e) => e.split(' ').slice(0, 2).join(' ')),
    ).toEqual(['7:17 targets[0].writeBack.branch', '7:36 targets[0].writeBack.path']);
  });

  it('refuses the forge token in a field that is not sensitive', () => {
    const token = 'glpat-carried-token-0123456789';
    const out = load(
      `targets:\n${target}    writeBack: {repository: "file:///r.git", branch: "\${env:T}", forge: {token: "\${env:T}"}}\n`,
      {
        T: token,
      },
    );
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => d.path)).toContain('targets[0].writeBack.branch');
    expect(JSON.stringify(out.diagnostics)).not.toContain(token);
  });

  it('reads the token from OBSYNC_FORGE_TOKEN_FILE when the config has none, and refuses a forge without one', () => {
    const base = { target: { name: 'prod', drift: 'propose' as const }, stateDir: '/s', baseDir: '/repo' };
    const defaults = { writeBack: { repository: 'https://git.example.com/r.git', forge: { type: 'gitlab' as const, project: 'g/r' } } };
    const settings = resolveWriteBack({
      ...base,
      defaults,
      env: { OBSYNC_FORGE_TOKEN_FILE: '/run/token' },
      readFile: files({ '/run/token': 'file-token-abcdefgh\n' }),
    });
    expect(settings.forge.token?.reveal()).toBe('file-token-abcdefgh');
    expect(settings.forge.apiUrl).toBe('https://gitlab.com/api/v4');
    expect(() => resolveWriteBack({ ...base, defaults, env: {}, readFile: files({}) })).toThrow(/needs a token/);
  });
});
