/**
 * The credentials the drivers read for themselves (PGPASSWORD, the PostgreSQL password file, a
 * proxy's user and password: manifests/credentials.ts) are told to the one scrubber before any
 * command runs. obsync never holds them as a `Secret` (the driver reads them), so nothing else would.
 */
import { registerSecret } from '../core/scrub.js';
import { implicitCredentials } from '../manifests/credentials.js';

export function registerImplicitCredentials(env: Readonly<Record<string, string | undefined>>): void {
  for (const { value } of implicitCredentials(env)) registerSecret(value);
}
