/**
 * Issue 24 item 5: a single secret over ~22 KB (or ~5,000 CJK characters: a webhook body the
 * schema allows) crashed validate, plan and run — one giant regular expression — and the crash
 * printed every registered secret. Through the real CLI: both commands work and print no secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;
beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-large-secret-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a webhook body of 16,000 CJK characters (a sensitive value the schema allows)', () => {
  it('validates and plans, and no output holds a piece of it', async () => {
    const body = `{"text": "${'秘密の本文'.repeat(3_199)}"}`;
    writeFileSync(
      join(dir, 'w.yaml'),
      `apiVersion: obsync/v1\nkind: Webhook\nmetadata: {name: big}\nspec:\n  service: generic\n  name: big\n  url: ` +
        `"https://hooks.example.com/x/abc123def456"\n  body: \${env:BIG_BODY}\n`,
    );
    writeFileSync(
      join(dir, 'obsync.yaml'),
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [w.yaml]\ntargets:\n  - {name: s, variant: sandbox}\n',
    );
    const env = { BIG_BODY: body, OBSYNC_KEY_SECRET: 'another-registered-secret-5521' };
    const validate = await runCli(['validate'], { cwd: dir, env });
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toBe('valid: 1 resource(s)\n');
    const plan = await runCli(['plan', '--output', 'markdown'], { cwd: dir, env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Webhook/big');
    for (const out of [plan.stdout, plan.stderr]) {
      expect(out).not.toContain('秘密の本文');
      expect(out).not.toContain('another-registered-secret');
    }
  });
});
