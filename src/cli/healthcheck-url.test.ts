import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgetServedUrl, probeUrl, probeUrlOfListen, recordServedUrl } from './healthcheck-url.js';

describe('the healthcheck probe', () => {
  it('probes the address the daemon serves, a wildcard on loopback', () => {
    expect(probeUrl('http://127.0.0.1:9464\n')).toBe('http://127.0.0.1:9464/livez');
    expect(probeUrl('http://0.0.0.0:8080')).toBe('http://127.0.0.1:8080/livez');
    expect(probeUrl('http://[::]:8080')).toBe('http://[::1]:8080/livez');
    expect(probeUrl('http://10.1.2.3:9464')).toBe('http://10.1.2.3:9464/livez');
  });

  it('refuses a record that is not an http URL with a port', () => {
    for (const bad of ['', 'garbage', 'https://127.0.0.1:9464', 'http://127.0.0.1', 'file:///etc/passwd'])
      expect(probeUrl(bad), bad).toBeNull();
  });

  it('falls back to the listen setting, HOST:PORT as --listen takes it', () => {
    expect(probeUrlOfListen('0.0.0.0:9464')).toBe('http://127.0.0.1:9464/livez');
    expect(probeUrlOfListen('127.0.0.1:9000')).toBe('http://127.0.0.1:9000/livez');
    expect(probeUrlOfListen('[::]:9464')).toBe('http://[::1]:9464/livez');
    expect(probeUrlOfListen('::1:9464')).toBe('http://[::1]:9464/livez');
    expect(probeUrlOfListen('9464')).toBeNull();
  });

  it('records the URL whole and forgets it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-url-'));
    try {
      const file = join(dir, 'served-url');
      recordServedUrl(file, 'http://127.0.0.1:1234');
      recordServedUrl(file, 'http://127.0.0.1:5678');
      expect(readFileSync(file, 'utf8')).toBe('http://127.0.0.1:5678\n');
      expect(readdirSync(dir)).toEqual(['served-url']);
      forgetServedUrl(file);
      forgetServedUrl(file);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
