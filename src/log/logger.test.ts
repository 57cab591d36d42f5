import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../core/scrub.js';
import { createLogger } from './logger.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

describe('createLogger', () => {
  it('masks a known secret under any key and inside messages, in JSON and pretty lines', () => {
    const value = 'logged-under-any-key-7781';
    registerSecret(value);
    for (const format of ['json', 'pretty'] as const) {
      const out = capture();
      const logger = createLogger({ format, stream: out.stream });
      logger.info({ detail: `server said ${value}`, nested: { whatever: value } }, 'step done');
      logger.flush();
      expect(out.text()).toContain('(sensitive)');
      expect(out.text()).not.toContain(value);
    }
  });

  it('still redacts credential keys', () => {
    const out = capture();
    createLogger({ stream: out.stream }).info({ headers: { authorization: 'Bearer abc' } }, 'x');
    expect(out.text()).not.toContain('Bearer abc');
  });

  it('shows control characters escaped in pretty lines', () => {
    const out = capture();
    createLogger({ format: 'pretty', stream: out.stream }).warn({ key: 'a\u001b[2Jb' }, 'message \r over');
    expect(out.text()).toContain('key=a\\u001b[2Jb');
    expect(out.text()).toContain('message \\r over');
    expect(out.text()).not.toContain('\u001b[2J');
  });
});
