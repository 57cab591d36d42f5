import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../core/scrub.js';
import { outputWriter, reportError, systemErrorMessage, type CliIO } from './io.js';

function captured(): { stream: NodeJS.WriteStream; text: () => string } {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (c: Buffer) => (text += c.toString()));
  return { stream: Object.assign(sink, { isTTY: true }) as unknown as NodeJS.WriteStream, text: () => text };
}

describe('the CLI writers', () => {
  it('mask every known secret on the way to stdout/stderr, whatever prints it, and keep the terminal visible', () => {
    const value = 'printed-by-anyone-5531';
    registerSecret(value);
    const out = captured();
    const writer = outputWriter(out.stream);
    writer.write(`a line with ${value}\n`);
    writer.write(Buffer.from(JSON.stringify({ note: value })));
    expect(out.text()).toBe('a line with (sensitive)\n{"note":"(sensitive)"}');
    expect(writer.isTTY).toBe(true);
  });
});

describe('reportError', () => {
  const io = (): { io: CliIO; err: () => string } => {
    const e = captured();
    return {
      io: { stdout: new PassThrough(), stderr: e.stream, stdin: new PassThrough(), terminal: e.stream, env: {}, cwd: '/' },
      err: e.text,
    };
  };

  it('turns a full disk into a plain message naming the file, without a stack', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      syscall: 'write',
      path: '/state/t.json',
      errno: -28,
    });
    const { io: cli, err } = io();
    reportError(cli, enospc);
    expect(err()).toBe(
      'error: cannot write /state/t.json: no space left on the device (ENOSPC)\n  hint: free some disk space and run again\n',
    );
    expect(systemErrorMessage(new Error('plain'))).toBeUndefined();
  });

  it('says open, not write, when opening a file fails (a saved plan that is not there is read, not written)', () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'plan.json'"), {
      code: 'ENOENT',
      syscall: 'open',
      path: 'plan.json',
      errno: -2,
    });
    expect(systemErrorMessage(enoent)?.message).toMatch(/^cannot open plan\.json: /);
  });

  it('shows escape sequences from a message escaped', () => {
    const { io: cli, err } = io();
    reportError(cli, new Error('server said \u001b[2J\rhello'));
    expect(err()).toBe('error: server said \\u001b[2J\\rhello\n');
  });
});
