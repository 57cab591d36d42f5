import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

const files = (map: Record<string, string>) => (p: string) => {
  const text = map[p];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
  return text;
};

describe('loadConfig', () => {
  it('interpolates and validates obsync.yaml', () => {
    const text =
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: prod\n    variant: self-hosted\n    ' +
      'baseUrl: ${env:OBS_URL}\n    credentials: {apiKey: "${file:key.txt}"}\n';
    const out = loadConfig(
      '/repo/obsync.yaml',
      { OBS_URL: 'http://127.0.0.1:8000' },
      { readFile: files({ '/repo/obsync.yaml': text, '/repo/key.txt': 'k-123\n' }) },
    );
    expect(out.diagnostics).toEqual([]);
    expect(out.dir).toBe('/repo');
    expect(out.config?.targets?.[0]).toEqual({
      name: 'prod',
      variant: 'self-hosted',
      baseUrl: 'http://127.0.0.1:8000',
      credentials: { apiKey: 'k-123' },
    });
  });

  it('locates errors with a suggestion and refuses the config', () => {
    const text =
      'apiVersion: obsync/v1\nkind: Config\nmanifest: [manifests]\ntargets:\n  - name: prod\n    variant: self-hosted\n    baseUrl: ' +
      '${env:OBS_URL}\n';
    const out = loadConfig('/repo/obsync.yaml', {}, { readFile: files({ '/repo/obsync.yaml': text }) });
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`)).toEqual([
      "3:1 manifest unknown key 'manifest' — did you mean 'manifests'?",
      '7:14 targets[0].baseUrl environment variable OBS_URL is not set (referenced as ${env:OBS_URL}): set it, or put it in .env or ' +
        'a file given with --dotenv',
    ]);
  });

  it('reports a missing file and a multi-document file', () => {
    expect(loadConfig('/none/obsync.yaml', {}, { readFile: files({}) }).diagnostics[0]).toMatchObject({ code: 'io' });
    const two = loadConfig(
      '/r/obsync.yaml',
      {},
      { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\n---\nkind: Config\n' }) },
    );
    expect(two.diagnostics[0]).toMatchObject({ code: 'multiple-documents' });
  });

  it('reads the postgres state backend in the shape the examples use, with the file backend as default', () => {
    const text = 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgres, url: "${env:OBSYNC_STATE_URL}", schema: obsync}\n';
    const url = 'postgres://obsync:pw@127.0.0.1:5432/obs';
    const out = loadConfig('/r/obsync.yaml', { OBSYNC_STATE_URL: url }, { readFile: files({ '/r/obsync.yaml': text }) });
    expect(out.diagnostics).toEqual([]);
    expect(out.config?.state).toEqual({ backend: 'postgres', url, schema: 'obsync' });
    const file = loadConfig(
      '/r/obsync.yaml',
      {},
      { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {path: st, leaseSeconds: 20}\n' }) },
    );
    expect(file.config?.state).toEqual({ backend: 'file', path: 'st', leaseSeconds: 20 });
    const typo = loadConfig(
      '/r/obsync.yaml',
      {},
      { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgres, url: x, shema: s}\n' }) },
    );
    expect(typo.config).toBeUndefined();
    expect(typo.diagnostics.map((d) => d.message).join('\n')).toMatch(/unknown key 'shema' — did you mean 'schema'/);
    const backend = loadConfig(
      '/r/obsync.yaml',
      {},
      { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgress, url: x}\n' }) },
    );
    expect(backend.diagnostics.map((d) => `${d.path} ${d.message}`).join('\n')).toBe(
      "state.backend unknown backend 'postgress' — expected one of: postgres, file",
    );
  });
});

describe('loadConfig with several targets', () => {
  const config = `apiVersion: obsync/v1
kind: Config
manifests: [base]
targets:
  - name: staging
    variant: self-hosted
    baseUrl: \${env:STAGING_URL}
    credentials: {apiKey: "\${env:STAGING_KEY}"}
    manifests: [staging]
    vars: {threshold: 900, webhook: staging-alerts, paging: false, source: "\${env:STAGING_SOURCE}"}
  - name: production
    variant: hosted
    baseUrl: https://api.example.com
    organizationId: \${env:PROD_ORG}
    serviceId: "\${env:PROD_SERVICE}"
    concurrency: \${env:PROD_CONCURRENCY}
    credentials: {keyId: "\${file:prod-key-id.txt}", keySecret: "\${env:PROD_SECRET}"}
    manifests: [production]
    vars: {threshold: 500}
`;
  const staging = { STAGING_URL: 'http://127.0.0.1:8000', STAGING_KEY: 'k-staging', STAGING_SOURCE: 'Logs' };

  it('resolves only the selected targets: an unset variable of another target is no error, and its files are not read', () => {
    const read: string[] = [];
    const readFile = (p: string) => {
      read.push(p);
      return files({ '/repo/obsync.yaml': config })(p);
    };
    const out = loadConfig('/repo/obsync.yaml', staging, { readFile, select: () => ['staging'] });
    expect(out.diagnostics).toEqual([]);
    expect(out.config?.targets).toEqual([
      {
        name: 'staging',
        variant: 'self-hosted',
        baseUrl: 'http://127.0.0.1:8000',
        credentials: { apiKey: 'k-staging' },
        manifests: ['staging'],
        vars: { threshold: 900, webhook: 'staging-alerts', paging: false, source: 'Logs' },
      },
    ]);
    expect(read).toEqual(['/repo/obsync.yaml']);
    expect(out.declared).toEqual([
      {
        name: 'staging',
        api: 'self-hosted',
        listed: ['staging'],
        tree: { manifests: ['staging'], vars: { threshold: '900', webhook: 'staging-alerts', paging: 'false', source: 'Logs' } },
      },
      // Not in use: its own paths as written, for the commands that must not edit what it reads (pull).
      { name: 'production', api: 'hosted', listed: ['production'] },
    ]);
  });

  it('reports the unset variables of a selected target, at their position', () => {
    const out = loadConfig('/repo/obsync.yaml', staging, {
      readFile: files({ '/repo/obsync.yaml': config }),
      select: () => ['production'],
    });
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.code}`)).toEqual([
      '14:21 targets[1].organizationId missing-reference',
      '15:16 targets[1].serviceId missing-reference',
      '16:18 targets[1].concurrency missing-reference',
      '17:26 targets[1].credentials.keyId missing-reference',
      '17:64 targets[1].credentials.keySecret missing-reference',
    ]);
  });

  it('with isolateTargets (plan, apply), a selected target whose own settings fail is set apart; the others resolve', () => {
    const both = () => ['staging', 'production'];
    const isolated = loadConfig('/repo/obsync.yaml', staging, {
      readFile: files({ '/repo/obsync.yaml': config }),
      select: both,
      isolateTargets: true,
    });
    expect(isolated.diagnostics).toEqual([]);
    expect(isolated.config?.targets?.map((t) => t.name)).toEqual(['staging']);
    expect(isolated.failedTargets?.map((f) => [f.name, f.diagnostics.map((d) => d.path)])).toEqual([
      [
        'production',
        [
          'targets[1].organizationId',
          'targets[1].serviceId',
          'targets[1].concurrency',
          'targets[1].credentials.keyId',
          'targets[1].credentials.keySecret',
        ],
      ],
    ]);
    // Without it (the daemon), the file is refused as before.
    expect(
      loadConfig('/repo/obsync.yaml', staging, { readFile: files({ '/repo/obsync.yaml': config }), select: both }).config,
    ).toBeUndefined();
    // Every selected target failing, or an error outside the targets' own settings, refuses the file.
    expect(
      loadConfig('/repo/obsync.yaml', {}, { readFile: files({ '/repo/obsync.yaml': config }), select: both, isolateTargets: true }).config,
    ).toBeUndefined();
    const broken = config.replace('manifests: [base]', 'manifests: [base]\nstate: {backend: mysql}');
    expect(
      loadConfig('/repo/obsync.yaml', staging, { readFile: files({ '/repo/obsync.yaml': broken }), select: both, isolateTargets: true })
        .config,
    ).toBeUndefined();
  });

  it('still refuses what a target not in use writes literally wrong', () => {
    const typo = config
      .replace('    manifests: [production]', '    manifest: [production]')
      .replace('baseUrl: https://api.example.com', 'baseUrl: ftp://api.example.com');
    const out = loadConfig('/repo/obsync.yaml', staging, { readFile: files({ '/repo/obsync.yaml': typo }), select: () => ['staging'] });
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => `${d.path}: ${d.message}`)).toEqual([
      'targets[1].baseUrl: the base URL must be http(s)://host[:port][/path] (e.g. https://api.example.com): it starts with ftp://, ' +
        'not https:// or http://',
      "targets[1].manifest: unknown key 'manifest' — did you mean 'manifests'?",
    ]);
  });

  it('resolves every target by default, and every tree with allTrees (validate) without their settings', () => {
    expect(loadConfig('/repo/obsync.yaml', staging, { readFile: files({ '/repo/obsync.yaml': config }) }).config).toBeUndefined();
    const trees = loadConfig(
      '/repo/obsync.yaml',
      {},
      { readFile: files({ '/repo/obsync.yaml': config }), select: () => [], allTrees: true },
    );
    // The staging source var is part of its tree: unset, it is an error; the credentials are not read.
    expect(trees.diagnostics.map((d) => `${d.path} ${d.code}`)).toEqual(['targets[0].vars.source missing-reference']);
    expect(trees.declared.map((d) => d.tree)).toEqual([undefined, { manifests: ['production'], vars: { threshold: '500' } }]);
  });

  it('refuses two targets of one name and a var name that cannot be written as ${var:NAME}', () => {
    const twice =
      'apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: a, variant: sandbox}\n  - {name: a, variant: sandbox, vars: ' +
      '{"bad-name": 1}}\n';
    const out = loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': twice }) });
    expect(out.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      "5:6 duplicate-target target 'a' is declared twice (also targets[0]): each target needs its own name",
      '5:40 invalid-key the key \'bad-name\': a var name is letters, digits and "_", not starting with a digit',
    ]);
  });
});

describe('defaults.target', () => {
  it('names a declared target (or the embedded sandbox)', () => {
    const text = (t: string) =>
      `apiVersion: obsync/v1\nkind: Config\ndefaults: {target: ${t}}\ntargets:\n  - {name: staging, variant: sandbox}\n`;
    const read = (t: string) => loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': text(t) }) });
    expect(read('staging').diagnostics).toEqual([]);
    expect(read('sandbox').diagnostics).toEqual([]);
    expect(read('stagign').diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`)).toEqual([
      "3:12 defaults.target defaults.target 'stagign' is not a declared target: obsync.yaml declares staging",
    ]);
  });
});

describe('notifications and statusToken', () => {
  const read = (extra: string, env: Record<string, string> = {}) =>
    loadConfig('/r/obsync.yaml', env, {
      readFile: files({
        '/r/obsync.yaml':
          `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: prod, variant: sandbox}\n  - {name: staging, ` +
          `variant: sandbox, data: s}\n${extra}`,
      }),
    });
  const problems = (extra: string, env: Record<string, string> = {}) =>
    read(extra, env).diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`);

  it('reads sinks and the token, with their ${env:} references', () => {
    const out = read(
      'notifications:\n  - {type: slack, url: "${env:SLACK_URL}", events: [failed, recovered], targets: [prod]}\n  - {type: ' +
        'generic, url: "http://127.0.0.1:9/hook"}\nstatusToken: "${env:OBSYNC_STATUS_TOKEN}"\n',
      { SLACK_URL: 'https://hooks.example.com/services/T0/B0/secret', OBSYNC_STATUS_TOKEN: 'a-status-token-of-24-ch' },
    );
    expect(out.diagnostics).toEqual([]);
    expect(out.config?.notifications).toEqual([
      { type: 'slack', url: 'https://hooks.example.com/services/T0/B0/secret', events: ['failed', 'recovered'], targets: ['prod'] },
      { type: 'generic', url: 'http://127.0.0.1:9/hook' },
    ]);
    expect(out.config?.statusToken).toBe('a-status-token-of-24-ch');
  });

  it('an invalid setting is an error at its key and position; a sink URL is never shown', () => {
    expect(problems('notifications:\n  - {type: teams, url: "http://127.0.0.1:9/h"}\n')).toEqual([
      "7:6 notifications[0].type invalid value 'teams' — expected one of: slack, generic, alertmanager",
    ]);
    expect(problems('notifications:\n  - {type: slack, url: "ftp://x.example/secret-path"}\n')).toEqual([
      '7:19 notifications[0].url the sink url must be http(s)://host[:port][/path] (e.g. "${env:SLACK_WEBHOOK_URL}"): it starts ' +
        'with ftp://, not https:// or http://',
    ]);
    expect(problems('notifications:\n  - {type: slack, url: "ftp://x.example/secret-path"}\n').join()).not.toContain('secret-path');
    expect(problems('notifications:\n  - {type: slack, url: "http://127.0.0.1:9/h", events: [drfit]}\n')).toEqual([
      "7:57 notifications[0].events[0] invalid value 'drfit' — expected one of: drift, healed, failed, recovered, adopted, " +
        "refused, non-convergent, leader, proposal, ignore-suggested — did you mean 'drift'?",
    ]);
    expect(problems('notifications:\n  - {type: slack, url: "http://127.0.0.1:9/h", targets: [prod, prdo]}\n')).toEqual([
      "7:64 notifications[0].targets[1] notifications[0].targets names 'prdo', which is not a target here: obsync.yaml declares " +
        'prod, staging',
    ]);
    expect(problems('statusToken: short\n')).toEqual([
      '6:1 statusToken must be at least 16 characters, (value not shown: sensitive field)',
    ]);
    expect(problems('statusToken: short\n').join()).not.toContain('short\n');
  });

  it(
    'signed generic sinks, custom headers, CloudEvents and Alertmanager: read, and refused where they do not apply, values never ' +
      'shown',
    () => {
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const out = read(
        'notifications:\n  - {type: generic, url: "http://127.0.0.1:9/h", format: cloudevents, signingSecret: "${env:S}", headers: ' +
          '{X-Api-Key: "${env:K}"}}\n  - {type: alertmanager, url: "http://127.0.0.1:9093", headers: {Authorization: "Basic abcdefgh"}}\n',
        { S: secret, K: 'key-value-of-the-header-42' },
      );
      expect(out.diagnostics).toEqual([]);
      expect(out.config?.notifications?.[0]).toMatchObject({
        format: 'cloudevents',
        signingSecret: secret,
        headers: { 'X-Api-Key': 'key-value-of-the-header-42' },
      });
      expect(out.sensitive.map((v) => v.value)).toEqual(expect.arrayContaining([secret, 'key-value-of-the-header-42', 'Basic abcdefgh']));

      const bad = [
        'notifications:\n  - {type: generic, url: "http://127.0.0.1:9/h", signingSecret: "whsec_short-secret-value"}\n',
        'notifications:\n  - {type: generic, url: "http://127.0.0.1:9/h", signingSecret: "whsec_c2hvcnQtc2VjcmV0LXZhbHVl"}\n',
        'notifications:\n  - {type: slack, url: "http://127.0.0.1:9/h", headers: {X-Key: "header-value-secret-1"}}\n',
        'notifications:\n  - {type: alertmanager, url: "http://127.0.0.1:9/h", format: cloudevents}\n',
        'notifications:\n  - {type: generic, url: "http://127.0.0.1:9/h", headers: {Content-Type: "text/plain-secret-2", "a b": ' +
          '"x-secret-3"}}\n',
        'notifications:\n  - {type: alertmanager, url: "http://127.0.0.1:9/h", events: [failed, drift]}\n',
      ].map((extra) => problems(extra));
      expect(bad).toEqual([
        [expect.stringMatching(/^7:\d+ notifications\[0\]\.signingSecret a signing secret is whsec_ and base64/)],
        [expect.stringMatching(/^7:\d+ notifications\[0\]\.signingSecret a signing secret holds 24 to 64 random bytes/)],
        [
          expect.stringMatching(
            new RegExp(
              /^7:\d+ notifications\[0\]\.headers headers is for type generic or alertmanager, /.source +
                /not slack \(a Slack webhook URL is its own credential\)/.source,
            ),
          ),
        ],
        [expect.stringMatching(/^7:\d+ notifications\[0\]\.format format is for type generic, not alertmanager/)],
        [
          expect.stringMatching(/notifications\[0\]\.headers\.Content-Type obsync sets the content-type header itself/),
          expect.stringMatching(/notifications\[0\]\.headers\.a b a header name is/),
        ],
        [expect.stringMatching(/^7:\d+ notifications\[0\]\.events an alertmanager sink takes failed and recovered together/)],
      ]);
      expect(bad.flat().join()).not.toMatch(/short-secret-value|c2hvcnQ|header-value-secret|plain-secret|x-secret-3/);
    },
  );
});
