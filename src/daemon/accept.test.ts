import { describe, expect, it } from 'vitest';
import { exposition } from './accept.js';

describe("the scraper's Accept header", () => {
  it.each([
    [
      'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,' +
        'text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
      'openmetrics',
    ],
    ['application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
    ['application/openmetrics-text', 'openmetrics'],
    ['text/plain, application/openmetrics-text', 'openmetrics'],
    ['text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5', 'text'],
    ['application/openmetrics-text;version=0.0.1', 'text'],
    ['application/openmetrics-text;q=0', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    ['', 'text'],
    [undefined, 'text'],
    ['garbage;;,,q=x', 'text'],
  ] as const)('%s → %s', (accept, expected) => {
    expect(exposition(accept)).toBe(expected);
  });
});
