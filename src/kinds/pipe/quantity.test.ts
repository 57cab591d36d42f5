import { describe, expect, it } from 'vitest';
import { parseCount, parseGigabytes, parseMillicores } from './quantity.js';

describe('scaling quantities', () => {
  it('reads millicores in every form the service has returned', () => {
    expect(parseMillicores('500m')).toBe(500);
    expect(parseMillicores('2')).toBe(2000);
    expect(parseMillicores(750)).toBe(750);
    expect(parseMillicores('lots')).toBeNull();
  });
  it('reads memory as gigabytes', () => {
    expect(parseGigabytes('2Gi')).toBe(2);
    expect(parseGigabytes('512Mi')).toBe(0.5);
    expect(parseGigabytes(0.5)).toBe(0.5);
    expect(parseGigabytes(null)).toBeNull();
  });
  it('reads replica counts given as strings', () => {
    expect(parseCount('3')).toBe(3);
    expect(parseCount(undefined)).toBeNull();
  });
});
