/**
 * Issue 40, item 1: the confirmation prompts of `apply` and `keys delete` on a real terminal.
 * readline draws the prompt with cursor control of its own; that control went through the output
 * pass that escapes service text, and the terminal showed `\u001b[1G\u001b[0J` and
 * `Only 'yes' is accepted: \u001b[66Gyes\r` as text. With and without colour.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli.js';
import { runOnTerminal } from '../support/terminal.js';

let dir: string;
const PROMPT = "Only 'yes' is accepted: ";
/** What the output pass makes of a control character: shown as text instead of acting. */
const ESCAPED = /\\u00[0-9a-f]{2}|\\r/;
// eslint-disable-next-line no-control-regex -- a colour code, raw, is what the terminal must get
const SGR = /\u001b\[[0-9;]*m/;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-terminal-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the confirmation prompt on a real terminal', () => {
  it.each([
    ['in colour', {}],
    ['with NO_COLOR', { NO_COLOR: '1' }],
  ] as const)('apply %s: the prompt and the typed answer show as typed, no escape code as text', async (how, env) => {
    // Each case applies a dashboard of its own, so each has a change to confirm.
    const name = how === 'in colour' ? 'colour' : 'plain';
    writeFileSync(
      join(dir, 'd.yaml'),
      `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec: {name: ${name}, tiles: []}\n`,
    );
    const run = await runOnTerminal(['apply', '.'], { cwd: dir, env, prompt: PROMPT, answer: 'yes' });
    expect(run.screen).not.toMatch(ESCAPED);
    expect(stripVTControlCharacters(run.screen)).toContain(`Apply these changes to target 'sandbox'? ${PROMPT}yes`);
    expect(run.screen).toContain('Apply complete:');
    expect(run.code).toBe(0);
    if (how === 'in colour') expect(run.screen).toMatch(SGR);
    else expect(run.screen).not.toMatch(SGR);
  });

  it('keys delete with --no-color: the same prompt, the key named; "no" deletes nothing', async () => {
    const run = await runOnTerminal(['--no-color', 'keys', 'delete', 'sandbox-bootstrap'], { cwd: dir, prompt: PROMPT, answer: 'no' });
    expect(run.screen).not.toMatch(ESCAPED);
    expect(run.screen).not.toMatch(SGR);
    expect(stripVTControlCharacters(run.screen)).toMatch(
      /Delete API key 'sandbox-bootstrap' \(id [^)]+\)\? Anything using it stops working\. Only 'yes' is accepted: no/,
    );
    expect(run.screen).toContain('Delete cancelled.');
    expect(run.code).toBe(1);
  });
});
