/**
 * Issue 13, item 11 (the prompt): Ctrl-C at apply's confirmation prompt. On a terminal, readline
 * takes Ctrl-C itself; unhandled, the prompt never returned (the process ended without releasing
 * the inventory lock). It now stops like any Ctrl-C before the first change.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExitRequest, type CliIO } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { until } from '../support/wait.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-prompt-'));
  writeFileSync(join(dir, 'd.yaml'), 'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: D, tiles: []}\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function terminalIO(): { io: CliIO; stdin: PassThrough; err: () => string } {
  let err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const stdout = new PassThrough();
  stdout.resume();
  return { io: { stdout, stderr, stdin, terminal: stderr, env: { NO_COLOR: '1' }, cwd: dir }, stdin, err: () => err };
}

describe('Ctrl-C at the confirmation prompt', () => {
  it('stops: nothing applied, the lock released, exit 130', async () => {
    const { io, stdin, err } = terminalIO();
    const run = buildProgram(io, ['apply', '.'])
      .then((program) => program.parseAsync(['apply', '.'], { from: 'user' }))
      .then(
        () => 0,
        (e: unknown) => (e instanceof ExitRequest ? e.exitCode : Promise.reject(e instanceof Error ? e : new Error(String(e)))),
      );
    await until('the prompt', () => (err().includes("Only 'yes' is accepted") ? true : undefined), { context: err });
    stdin.write('\u0003');
    expect(await run).toBe(130);
    expect(err()).toContain('Interrupted: nothing was applied.');
    const state = join(dir, '.obsync/state');
    expect(existsSync(state) ? readdirSync(state).filter((f) => f.endsWith('.lock')) : []).toEqual([]);
  });
});
