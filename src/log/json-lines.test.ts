import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asJsonLine, jsonLines, TEXT_OUTPUT } from './json-lines.js';

describe('jsonLines', () => {
  it('every line that reaches the target is a JSON object, whatever was written, in any chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' })), async (chunks) => {
        const out: string[] = [];
        const stream = jsonLines({ write: (s: string) => out.push(s) > 0 });
        for (const c of chunks) stream.write(c);
        await new Promise<void>((done) => stream.end(done));
        const lines = out.join('').split('\n').slice(0, -1);
        for (const line of lines) expect(JSON.parse(line)).toBeTypeOf('object');
        // The text of each line written: a wrapped line's `text`, a JSON object line itself.
        const texts = lines.map((l) => {
          const record = JSON.parse(l) as { msg?: unknown; text?: string };
          return record.msg === TEXT_OUTPUT && typeof record.text === 'string' ? record.text : l;
        });
        expect(texts.join('\n')).toBe(
          chunks
            .join('')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .join('\n'),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('passes a JSON object line as it is, and wraps any other line with a fixed message and a level', () => {
    const json = '{"level":"info","msg":"run finished"}';
    expect(asJsonLine(json)).toBe(json);
    const now = new Date('2026-11-30T12:00:00Z');
    expect(JSON.parse(asJsonLine('error: the config is wrong', now))).toEqual({
      level: 'error',
      time: '2026-11-30T12:00:00.000Z',
      msg: TEXT_OUTPUT,
      text: 'error: the config is wrong',
    });
    expect(JSON.parse(asJsonLine('[1,2]', now))).toMatchObject({ level: 'info', text: '[1,2]' });
    expect(JSON.parse(asJsonLine('{not json', now))).toMatchObject({ text: '{not json' });
  });
});
