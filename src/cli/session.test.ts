import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { cliLogger } from './cli-logger.js';

/** The daemon logs through this logger: pretty on a terminal, coloured unless NO_COLOR or --no-color. */
async function logLine(env: Record<string, string>, color?: boolean): Promise<string> {
  const stderr = Object.assign(new PassThrough(), { isTTY: true });
  const chunks: string[] = [];
  stderr.on('data', (c: Buffer) => chunks.push(c.toString()));
  const io: CliIO = {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough(),
    terminal: stderr,
    env,
    cwd: '/',
    ...(color === undefined ? {} : { color }),
  };
  cliLogger(io, 'info').warn({ target: 'prod' }, 'run failed');
  await new Promise((resolve) => setImmediate(resolve));
  return chunks.join('');
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);

describe('cliLogger on a terminal', () => {
  it('colours the pretty lines by default', async () => {
    const line = await logLine({});
    expect(line).toContain('run failed');
    expect(line).toMatch(ANSI);
  });

  it('honours NO_COLOR and --no-color', async () => {
    const noColorEnv = await logLine({ NO_COLOR: '1' });
    expect(noColorEnv).toContain('WARN  run failed target=prod');
    expect(noColorEnv).not.toMatch(ANSI);
    const flag = await logLine({}, false);
    expect(flag).toContain('WARN  run failed target=prod');
    expect(flag).not.toMatch(ANSI);
  });
});
