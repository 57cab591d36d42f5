import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileText, RAW_UNSAFE, RUNNER_COMMAND, withoutOwnEscapes } from '../../test/support/hostile-text.js';
import { CLEAR_LINE, joinLines, printable, printableLines, safeOutput, styled, workflowCommand } from './printable.js';

describe('printable, printableLines, joinLines', () => {
  it('show control characters and bidi overrides escaped instead of obeying them', () => {
    expect(printable('\u001b[2Jclear\rover\u202eevil\nline\u200b\u{e0041}')).toBe(
      '\\u001b[2Jclear\\rover\\u202eevil\\nline\\u200b\\udb40\\udc41',
    );
    expect(printableLines('a\nb\tc\u0007')).toBe('a\n  b\tc\\u0007');
    expect(joinLines(['one', 'two\nPlan: forged', 'three\r'])).toBe('one\ntwo\\nPlan: forged\nthree\\r');
  });

  it('indent every line of a multi-line message after the first, so nothing it carries starts a line', () => {
    expect(printableLines('failed:\nPlan: 1 to create\n  already indented\n\nlast')).toBe(
      'failed:\n  Plan: 1 to create\n  already indented\n\n  last',
    );
  });

  it('keep an emoji presentation selector after an emoji, and escape a lone one', () => {
    expect(printable('❤️ ok')).toBe('❤️ ok');
    expect(printable('a\ufe0fb')).toBe('a\\ufe0fb');
  });
});

describe('safeOutput', () => {
  it('escapes what acts, defuses workflow commands, and keeps the layout', () => {
    expect(safeOutput('ok\n\u001b[8mhidden\u001b[0m\n  ::add-mask::secret\nsee ##[stop-commands]t\n\tindented')).toBe(
      'ok\n\\u001b[8mhidden\\u001b[0m\n  \\u003a:add-mask::secret\nsee ##\\u005bstop-commands]t\n\tindented',
    );
  });

  it("makes obsync's own colours, line clearing and annotations real, and only those", () => {
    expect(safeOutput(`${styled(['bold', 'red'], 'x')} ${styled('gray', 'y')}`)).toBe(
      '\u001b[1m\u001b[31mx\u001b[39m\u001b[22m \u001b[90my\u001b[39m',
    );
    expect(safeOutput(`${CLEAR_LINE}waiting`)).toBe('\r\u001b[2Kwaiting');
    expect(safeOutput(`${workflowCommand('::error file=a.yaml::bad')}\n::error::forged`)).toBe(
      '::error file=a.yaml::bad\n\\u003a:error::forged',
    );
    // A forged marker (without the process's key) is data.
    expect(safeOutput('\u0000K\u0000::x')).toBe('\\u0000K\\u0000::x');
  });

  it('keeps JSON valid and equal: its escapes are JSON escapes', () => {
    const value = { name: 'a\u202eb\u2028c ##[x] \u0085 \u{e0041}', n: 1 };
    const text = safeOutput(JSON.stringify(value, null, 2));
    expect(JSON.parse(text)).toEqual(value);
    expect(text).not.toMatch(RAW_UNSAFE);
  });

  it('leaves no raw unsafe character and no runner command in anything, however it is laid out (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hostileText, fc.constantFrom('plain', 'styled', 'line', 'annotation')), { maxLength: 8 }), (parts) => {
        const text = parts
          .map(([t, how]) =>
            how === 'styled'
              ? styled('red', t)
              : how === 'line'
                ? joinLines([t])
                : how === 'annotation'
                  ? `\n${workflowCommand(`::warning::${t}`)}\n`
                  : t,
          )
          .join('');
        const out = safeOutput(text);
        expect(withoutOwnEscapes(out)).not.toMatch(RAW_UNSAFE);
        const commands = out.split('\n').filter((line) => RUNNER_COMMAND.test(line));
        for (const line of commands) expect(line).toMatch(/^::warning::/);
        expect(out).not.toContain('##[');
      }),
      { numRuns: 500 },
    );
  });
});
