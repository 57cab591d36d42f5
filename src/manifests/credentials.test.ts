import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionKeys, credentialValues, withPassword } from './credentials.js';

const values = (env: Record<string, string>) => credentialValues({ HOME: '/nonexistent', ...env }).map((v) => v.value);

describe('the state URL as a credential', () => {
  it('takes the password from the userinfo and from a password parameter, and names no password when there is none', () => {
    expect(withPassword('postgres://u:p%40ss@h/db', 'x').map((v) => v.value)).toEqual(['postgres://u:p%40ss@h/db', 'p%40ss', 'p@ss']);
    expect(withPassword('postgres://u@h/db?password=secret-pw', 'x').map((v) => v.value)).toContain('secret-pw');
    expect(withPassword('postgres://u@h/db', 'x').map((v) => v.value)).toEqual(['postgres://u@h/db']);
  });

  it('counts the client key the URL names (node-postgres reads it to log in), from the variable and from its _FILE twin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-sslkey-'));
    const key = join(dir, 'client.key');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\ncanary-key-body-91c2\n-----END PRIVATE KEY-----\n');
    const url = `postgres://u@127.0.0.1/db?sslkey=${encodeURIComponent(key)}`;
    expect(connectionKeys(url)).toEqual(['-----BEGIN PRIVATE KEY-----\ncanary-key-body-91c2\n-----END PRIVATE KEY-----']);
    expect(values({ OBSYNC_STATE_URL: url })).toContain(connectionKeys(url)[0]);
    writeFileSync(join(dir, 'url'), url);
    expect(values({ OBSYNC_STATE_URL_FILE: join(dir, 'url') })).toContain(connectionKeys(url)[0]);
  });

  it('adds nothing for a key file that cannot be read or a value that is not a URL', () => {
    expect(connectionKeys('postgres://u@h/db?sslkey=/nonexistent/key')).toEqual([]);
    expect(connectionKeys('not a url')).toEqual([]);
  });
});
