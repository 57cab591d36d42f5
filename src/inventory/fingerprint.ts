/**
 * The HMAC key of the secret fingerprints: one per state (all targets). It must travel with the
 * state: a fresh CI runner with a new key would see every write-only secret as changed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObsyncError } from '../core/errors.js';
import { FileRefusal, readRegularBytesIfPresent } from '../manifests/files.js';

export const KEY_BYTES = 32;

export function hmacFingerprint(key: Buffer, value: string): string {
  return 'hmac-sha256:' + createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

export function newFingerprintKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

export function fileKeyPath(dir: string): string {
  return join(dir, 'fingerprint.key');
}

export function readFileKey(dir: string): Buffer | null {
  const path = fileKeyPath(dir);
  const existing = readKeyFile(path);
  if (existing && existing.length < KEY_BYTES) {
    throw new ObsyncError('INVENTORY_CORRUPT', `the fingerprint key ${path} is damaged (${existing.length} bytes)`, {
      hint: 'restore it from a copy; without it every write-only secret is seen as changed and sent again once',
    });
  }
  return existing;
}

/** The key file's bytes (a regular file of a few bytes; anything else is damage), or null before it was made. */
function readKeyFile(path: string): Buffer | null {
  try {
    return readRegularBytesIfPresent(path, 4096) ?? null;
  } catch (err) {
    if (!(err instanceof FileRefusal)) throw err;
    throw new ObsyncError('INVENTORY_CORRUPT', `the fingerprint key ${path} is damaged: it is ${err.reason}`, {
      hint: 'restore it from a copy; without it every write-only secret is seen as changed and sent again once',
    });
  }
}

export async function loadOrCreateFileKey(dir: string): Promise<Buffer> {
  const existing = readFileKey(dir);
  if (existing) return existing;
  try {
    const key = newFingerprintKey();
    await writeFile(fileKeyPath(dir), key, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileKey(dir) ?? newFingerprintKey();
    throw err;
  }
}

export async function writeFileKey(dir: string, key: Buffer): Promise<void> {
  const tmp = `${fileKeyPath(dir)}.${process.pid}.tmp`;
  await writeFile(tmp, key, { mode: 0o600 });
  await rename(tmp, fileKeyPath(dir));
}
