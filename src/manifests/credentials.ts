/**
 * obsync's own credential variables (DESIGN §3): their values (and the contents of the files
 * their `*_FILE` twins name) are credentials wherever they appear, so no non-sensitive field may
 * carry them (./carried.ts), whichever variable or file brought them in.
 */
import { readRegularFile } from './files.js';
import type { SensitiveValue } from './carried.js';

export const CREDENTIAL_VARIABLES = [
  'OBSYNC_API_KEY',
  'OBSYNC_KEY_ID',
  'OBSYNC_KEY_SECRET',
  'OBSYNC_STATE_URL',
  'OBSYNC_STATUS_TOKEN',
] as const;

/**
 * The credential variables that say a real service is meant (DESIGN §3): with any of them (or its
 * `*_FILE` twin) set, no command falls back to the embedded sandbox. The status token is not one:
 * it guards the daemon's own page.
 */
export const SERVICE_CREDENTIAL_VARIABLES = ['OBSYNC_API_KEY', 'OBSYNC_KEY_ID', 'OBSYNC_KEY_SECRET', 'OBSYNC_STATE_URL'] as const;

/** The service credential variables that are set (a `*_FILE` twin by its own name). */
export function serviceCredentialsSet(env: Readonly<Record<string, string | undefined>>): string[] {
  return SERVICE_CREDENTIAL_VARIABLES.flatMap((name) => [name, `${name}_FILE`]).filter((name) => (env[name] ?? '') !== '');
}

/** The values of the credential variables that are set, and of the files their `*_FILE` twins name (with the state URL's password). */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): SensitiveValue[] {
  const out: SensitiveValue[] = [];
  for (const name of CREDENTIAL_VARIABLES) {
    const value = env[name];
    if (value) out.push(...withPassword(value, `the value of ${name}`));
    const file = env[`${name}_FILE`];
    if (!file) continue;
    try {
      out.push(...withPassword(readRegularFile(file).trim(), `the contents of ${name}_FILE`));
    } catch {
      // An unreadable credential file is reported where the target is resolved.
    }
  }
  return out;
}

/** A value and, for a URL with credentials (a state URL), its password on its own. */
export function withPassword(value: string, origin: string): SensitiveValue[] {
  const out = [{ value, origin }];
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) {
    try {
      const password = new URL(value).password;
      if (password !== '')
        out.push(
          { value: password, origin: `the password in ${origin}` },
          { value: decodeURIComponent(password), origin: `the password in ${origin}` },
        );
    } catch {
      // Not a URL after all: the whole value is still guarded.
    }
  }
  return out;
}
