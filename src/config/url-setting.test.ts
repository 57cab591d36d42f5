/**
 * Issue 40 item 5: `baseUrl: hyperdx.example.com` gave two vague errors (and from the environment,
 * a proxy without a scheme, a raw "Invalid URL protocol"). Every URL setting — in obsync.yaml at
 * its file:line, from the environment naming its variable — says the form wanted and what is
 * wrong, once, and never shows the value (it may carry a secret).
 */
import { describe, expect, it } from 'vitest';
import { proxyFromEnv } from '../cli/network.js';
import { loadConfig } from './load.js';
import { HTTP_URL, POSTGRES_URL, urlProblem } from './url-setting.js';

const config = (lines: string) =>
  `apiVersion: obsync/v1\nkind: Config\n${lines}targets:\n  - {name: t, variant: self-hosted, baseUrl: hyperdx.example.com:8000, ` +
  `credentials: {apiKey: k}}\n`;

describe('URL settings', () => {
  it('of obsync.yaml: one error each, at its line, with the form wanted and what is wrong, never the value', () => {
    const text = config(
      'state: {backend: postgres, url: "db.internal:5432/obsync?password=hunter2"}\nnotifications:\n  - {type: slack, url: ' +
        '"hooks.example.com/T0/secret-path"}\n',
    );
    const out = loadConfig('/r/obsync.yaml', {}, { readFile: () => text });
    const said = out.diagnostics.map((d) => `${d.line} ${d.path} ${d.message}`);
    expect([...said].sort()).toEqual([
      '3 state.url the state URL must be postgres://user:password@host:5432/database (e.g. "${env:OBSYNC_STATE_URL}"): it has no ' +
        'scheme: write postgres:// or postgresql:// in front of the host',
      '5 notifications[0].url the sink url must be http(s)://host[:port][/path] (e.g. "${env:SLACK_WEBHOOK_URL}"): it has no ' +
        'scheme: write https:// or http:// in front of the host',
      '7 targets[0].baseUrl the base URL must be http(s)://host[:port][/path] (e.g. http://obs-api.internal:8000): it has no ' +
        'scheme: write https:// or http:// in front of the host',
    ]);
    expect(said.join('\n')).not.toMatch(/hunter2|secret-path|hyperdx/);
    // A reference left as written (validate defers the state) is judged once resolved.
    const deferred = config('state: {backend: postgres, url: "${env:PG_URL}"}\n').replace('hyperdx.example.com:8000', 'http://127.0.0.1:9');
    expect(loadConfig('/r/obsync.yaml', {}, { readFile: () => deferred, deferState: true }).diagnostics).toEqual([]);
  });

  it('of write-back: the forge API URL, under the same rule', () => {
    const text = config('')
      .replace(
        'credentials: {apiKey: k}}',
        'credentials: {apiKey: k}, writeBack: {repository: "https://git.example/o/r.git", forge: {type: github, apiUrl: api.github.com}}}',
      )
      .replace('hyperdx.example.com:8000', 'http://127.0.0.1:9');
    const said = loadConfig('/r/obsync.yaml', {}, { readFile: () => text }).diagnostics.map((d) => `${d.path} ${d.message}`);
    expect(said).toEqual([
      'targets[0].writeBack.forge.apiUrl the forge API URL must be http(s)://host[:port][/path] (e.g. https://api.github.com): it ' +
        'has no scheme: write https:// or http:// in front of the host',
    ]);
  });

  it('from the environment: the variable named, the same rule', () => {
    expect(() => proxyFromEnv({ HTTPS_PROXY: 'user:pw@proxy.internal:3128' })).toThrow(
      /^HTTPS_PROXY must be http\(s\):\/\/host\[:port\]\[\/path\] \(e\.g\. http:\/\/proxy\.internal:3128\): it has no scheme/,
    );
    expect(() => proxyFromEnv({ https_proxy: 'proxy.internal', HTTPS_PROXY: 'http://ok:1' })).toThrow(/^https_proxy must be/);
    expect(proxyFromEnv({ HTTP_PROXY: 'http://proxy.internal:3128' })).toMatchObject({ httpProxy: 'http://proxy.internal:3128' });
  });

  it('tell each kind of mistake apart', () => {
    expect(urlProblem('https://api.example.com', HTTP_URL)).toBeUndefined();
    expect(urlProblem('ftp://api.example.com', HTTP_URL)).toBe('it starts with ftp://, not https:// or http://');
    expect(urlProblem('http://exa mple.com', HTTP_URL)).toBe('it is not a URL (check the host and the port)');
    expect(urlProblem('http://api.example.com:99999', HTTP_URL)).toBe('it is not a URL (check the host and the port)');
    expect(urlProblem('postgres:///obsync?host=/var/run/postgresql', POSTGRES_URL)).toBeUndefined();
  });
});
