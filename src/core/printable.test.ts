import { describe, expect, it } from 'vitest';
import { printable, printableLines } from './printable.js';

describe('printable', () => {
  it('shows control characters and bidi overrides escaped instead of obeying them', () => {
    expect(printable('\u001b[2Jclear\rover\u202eevil\nline')).toBe('\\u001b[2Jclear\\rover\\u202eevil\\nline');
    expect(printableLines('a\nb\tc\u0007')).toBe('a\nb\tc\\u0007');
  });
});
