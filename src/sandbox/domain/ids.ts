/** Server-owned identifiers: 24-hex Mongo ObjectId strings. */
import { randomBytes } from 'node:crypto';

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/** A fresh ObjectId: 4 bytes of seconds since the epoch, then 8 random bytes (like bson). */
export function newObjectId(now: Date): string {
  const seconds = Math.floor(now.getTime() / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + randomBytes(8).toString('hex');
}

/**
 * Ids of the demo seed: fixed, so documentation and tests can name them across restarts.
 * The prefix spells "5eed" and the last digits number the objects.
 */
export function seedId(n: number): string {
  return `5eed0000000000000000${n.toString(16).padStart(4, '0')}`;
}
