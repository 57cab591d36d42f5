/**
 * Issue 15: a webhook's URL and headers are sensitive. A manifest that breaks the service's
 * rules for them is reported by rule and place, never with the value (a Slack URL carries a
 * token); the text, JSON and GitHub outputs alike. Issue 40 item 4: a short value is taken out
 * of a message under the rule every masking path shares (the scrubber's): only where it stands
 * as a whole word, never inside one (`h(sensitive)ad(sensitive)rs is not support(sensitive)d`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, runCli } from '../support/cli.js';

const TOKEN = 'xoxb-4815162342-SECRET';
let dir: string;

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-webhook-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const webhook = (spec: string) => `apiVersion: obsync/v1\nkind: Webhook\nmetadata: {name: ops}\nspec: ${spec}\n`;

describe('webhook diagnostics', () => {
  it("name the broken rule and the place, never the URL or a header's value", async () => {
    writeFileSync(join(dir, 'a.yaml'), webhook(`{service: slack, name: ops, url: 'https://example.com/services/${TOKEN}'}`));
    writeFileSync(
      join(dir, 'b.yaml'),
      webhook(`{service: generic, name: ops2, url: 'ftp://files.example.com/${TOKEN}', headers: {'X-Token': "${TOKEN}\\n"}}`).replace(
        '{name: ops}',
        '{name: ops2}',
      ),
    );
    const { diagnostics } = loadManifests([dir], { env: {} });
    expect(diagnostics.map((d) => `${d.path ?? ''}: ${d.message}`).sort()).toEqual(
      [
        'spec.headers.X-Token: header values cannot contain control characters',
        'spec.url: the URL must be an http:// or https:// URL',
        "spec.url: a slack webhook's URL is on a host ending in slack.com",
      ].sort(),
    );
    for (const output of ['text', 'github', 'json']) {
      const res = await runCli(['validate', '--output', output, '.'], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stdout + res.stderr).not.toContain(TOKEN);
      expect(res.stdout + res.stderr).not.toContain('4815162342');
    }
  });

  it('a short header value never masks inside the words of a message, and is masked where it stands as a word (issue 40, property)', () => {
    const messageOf = (value: string) => {
      writeFileSync(
        join(dir, 'w.yaml'),
        webhook(`{service: slack, name: ops, url: 'https://hooks.slack.com/services/T0/B0/x', headers: {A: ${JSON.stringify(value)}}}`),
      );
      return loadManifests([dir], { env: {} }).diagnostics.map((d) => d.message);
    };
    expect(messageOf('e')).toEqual(['headers is not supported for the slack webhook service']);
    expect(messageOf('slack')).toEqual(['headers is not supported for the (sensitive) webhook service']);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,11}$/), (value) => {
        const [message] = messageOf(value);
        // Whatever the value, the message's words stay whole: a mask is a word of its own, or there is none.
        expect(message?.replaceAll('(sensitive)', value)).toBe('headers is not supported for the slack webhook service');
        expect(message).not.toMatch(/\w\(sensitive\)|\(sensitive\)\w/);
      }),
      { numRuns: 60 },
    );
  });
});
