/**
 * The HMAC key of the secret fingerprints: one per state (all targets). It must travel with the
 * state: a fresh CI runner with a new key would see every write-only secret as changed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObsyncError } from '../core/errors.js';

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

export async function readFileKey(dir: string): Promise<Buffer | null> {
  const path = fileKeyPath(dir);
  const existing = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (existing && existing.length < KEY_BYTES) {
    throw new ObsyncError('INVENTORY_CORRUPT', `the fingerprint key ${path} is damaged (${existing.length} bytes)`, {
      hint: 'restore it from a copy; without it every write-only secret is seen as changed and sent again once',
    });
  }
  return existing;
}

export async function loadOrCreateFileKey(dir: string): Promise<Buffer> {
  const existing = await readFileKey(dir);
  if (existing) return existing;
  try {
    const key = newFingerprintKey();
    await writeFile(fileKeyPath(dir), key, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readFileKey(dir)) ?? newFingerprintKey();
    throw err;
  }
}

export async function writeFileKey(dir: string, key: Buffer): Promise<void> {
  const tmp = `${fileKeyPath(dir)}.${process.pid}.tmp`;
  await writeFile(tmp, key, { mode: 0o600 });
  await rename(tmp, fileKeyPath(dir));
}
