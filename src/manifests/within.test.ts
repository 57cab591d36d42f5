import { describe, expect, it } from 'vitest';
import { isWithin } from './files.js';

describe('isWithin', () => {
  it('is the root itself and what is below it, including ConfigMap folders named ..data', () => {
    expect(isWithin('/config', '/config')).toBe(true);
    expect(isWithin('/config', '/config/a.yaml')).toBe(true);
    expect(isWithin('/config', '/config/..data/a.yaml')).toBe(true);
    expect(isWithin('/config', '/config/..2024_11_23_10_00_00.123/a.yaml')).toBe(true);
  });
  it('is not a sibling, a parent or a path that climbs out', () => {
    expect(isWithin('/config', '/configs/a.yaml')).toBe(false);
    expect(isWithin('/config', '/')).toBe(false);
    expect(isWithin('/config', '/config/../etc/passwd')).toBe(false);
    expect(isWithin('/config/a', '/config/b')).toBe(false);
  });
});
