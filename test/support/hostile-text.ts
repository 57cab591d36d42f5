/** What attacks output, for the output pass's property tests (src/core/printable.test.ts, test/hostile/output-forgery.test.ts). */
import fc from 'fast-check';

/** A character that acts instead of showing: controls, bidi, zero-width and other invisible ones, separators, lone surrogates. */
export const RAW_UNSAFE = /(?![\n\t]|(?<=\p{Emoji})[\uFE0E\uFE0F])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
/** A line the GitHub runner would take as a workflow command (it trims leading spaces; the legacy form works anywhere). */
export const RUNNER_COMMAND = /^[\s\u0085\u180e]*::|##\[/mu;

/** Strings made of what attacks output: escape sequences, BEL, CR, bidi, zero-width, separators, workflow commands. */
export const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\u001b[2J',
        '\u001b]8;;http://x\u0007',
        '\u0007',
        '\r',
        '\n',
        '\u0085',
        '\u2028',
        '\u2029',
        '\u202e',
        '\u2066',
        '\u200b',
        '\u200d',
        '\ufeff',
        '\u00ad',
        '\u{e0041}',
        '\ud800',
        '\u3164',
        '::add-mask::x',
        '::error::forged',
        '##[stop-commands]t',
        'Plan: 0 to create',
        '  ',
        '\u00a0',
        '❤️',
        '@everyone',
        '#123',
        ' https://evil.example/x ',
        ' www.evil.example ',
        'mailto:a',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** `text` without the escape sequences obsync itself prints on a terminal (its colours and the progress line's clearing). */
export function withoutOwnEscapes(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing obsync's own escape sequences is the point
  return text.replace(/\u001b\[\d+m|\r\u001b\[2K/g, '');
}
