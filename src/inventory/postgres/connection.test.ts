/**
 * Issue 53 item 7: a PostgreSQL error named the database as `(sensitive)` when the state URL had
 * no password — the whole URL was a secret, and the location it prints is that URL. Only the
 * passwords are secret: the error, as the CLI prints it (the one scrubber), names where the state
 * is and never a password. Nothing listens on port 9: the connection is refused at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObsyncError } from '../../core/errors.js';
import { scrub, SENSITIVE } from '../../core/scrub.js';
import { Secret } from '../../core/secret.js';
import { openPostgresState } from './backend.js';

async function failureOf(url: string): Promise<string> {
  const err = await openPostgresState({
    url: Secret.connection(url),
    schema: 'obsync',
    timing: { leaseMs: 30_000, renewMs: 10_000 },
    prepare: true,
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ObsyncError);
  return scrub(`${(err as ObsyncError).message} ${(err as ObsyncError).hint ?? ''}`);
}

describe('a PostgreSQL state error', () => {
  it('names the database of a URL without a password, whatever its name', async () => {
    const text = await failureOf('postgres://obsync@127.0.0.1:9/obsync_ci_2024');
    expect(text).toContain('cannot reach the PostgreSQL state at postgres://obsync@127.0.0.1:9/obsync_ci_2024 (schema obsync)');
    expect(text).not.toContain(SENSITIVE);
  });

  it('masks the password only: in the userinfo or as a password parameter, as written and decoded (property)', async () => {
    const password = fc.stringMatching(/^[A-Za-z0-9@:/%-]{6,20}$/);
    const database = fc.stringMatching(/^[a-z][a-z0-9_]{3,20}$/);
    await fc.assert(
      fc.asyncProperty(password, database, fc.boolean(), async (pw, db, inQuery) => {
        const url = inQuery
          ? `postgres://obsync@127.0.0.1:9/${db}?password=${encodeURIComponent(pw)}`
          : `postgres://obsync:${encodeURIComponent(pw)}@127.0.0.1:9/${db}`;
        // The driver's own message may quote the password: the location never does.
        const text = await failureOf(url);
        expect(text).toContain(`postgres://obsync@127.0.0.1:9/${db} (schema obsync)`);
        expect(scrub(`echo ${pw} and ${encodeURIComponent(pw)}`)).toBe(`echo ${SENSITIVE} and ${SENSITIVE}`);
      }),
      { numRuns: 15 },
    );
  });
});
