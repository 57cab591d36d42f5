import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { askOnTerminal } from './prompt.js';

function terminalIO(): { io: CliIO; stdin: PassThrough; screen: () => string } {
  let screen = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  terminal.on('data', (c: Buffer) => (screen += c.toString()));
  const io: CliIO = { stdout: new PassThrough(), stderr: new PassThrough(), stdin, terminal, env: {}, cwd: '/' };
  return { io, stdin, screen: () => screen };
}

describe('askOnTerminal', () => {
  it("draws readline's cursor control raw and the question's words through the output pass", async () => {
    const { io, stdin, screen } = terminalIO();
    const answer = askOnTerminal(io, "Apply to target 'a\u001b[2Jb'? ");
    stdin.write('yes\r');
    expect(await answer).toBe('yes');
    // A target's name cannot clear the screen; readline still moves the cursor itself.
    expect(screen()).toContain("Apply to target 'a\\u001b[2Jb'? ");
    expect(screen()).not.toContain('\u001b[2J');
    expect(screen()).toContain('\u001b[');
  });

  it('answers null on Ctrl-C', async () => {
    const { io, stdin } = terminalIO();
    const answer = askOnTerminal(io, 'Sure? ');
    stdin.write('\u0003');
    expect(await answer).toBeNull();
  });
});
