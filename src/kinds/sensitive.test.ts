import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { maskSensitive, sensitivePaths } from './sensitive.js';

describe('sensitivePaths / maskSensitive', () => {
  const schema = z.strictObject({
    items: z.array(z.strictObject({ token: z.string().meta({ sensitive: true }), name: z.string() })).optional(),
    headers: z.record(z.string(), z.string().meta({ sensitive: true })),
    either: z.union([z.string(), z.strictObject({ key: z.string().meta({ sensitive: true }).default('k') })]),
  });

  it('walks arrays, records, unions and wrappers', () => {
    expect(sensitivePaths(schema)).toEqual([
      ['items', '*', 'token'],
      ['headers', '*'],
      ['either', 'key'],
    ]);
  });

  it('masks every matching value and leaves the rest', () => {
    const value = {
      items: [
        { token: 'a', name: 'x' },
        { token: 'b', name: 'y' },
      ],
      headers: { auth: 'z' },
      either: 'plain',
    };
    expect(maskSensitive(value, sensitivePaths(schema))).toEqual({
      items: [
        { token: '(sensitive)', name: 'x' },
        { token: '(sensitive)', name: 'y' },
      ],
      headers: { auth: '(sensitive)' },
      either: 'plain',
    });
    expect(value.items[0]?.token).toBe('a');
  });
});
