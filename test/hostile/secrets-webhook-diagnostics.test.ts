/**
 * Issue 15: a webhook's URL and headers are sensitive. A manifest that breaks the service's
 * rules for them is reported by rule and place, never with the value (a Slack URL carries a
 * token); the text, JSON and GitHub outputs alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
