/**
 * obsync's own credential variables (DESIGN §3). `${env:...}` may use them only in sensitive
 * fields (manifests and obsync.yaml alike), and no other field may carry their values (or the
 * contents of the files their `*_FILE` twins name).
 */
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

/** Every credential variable and its `*_FILE` twin. */
export const CREDENTIAL_VARIABLE_NAMES: ReadonlySet<string> = new Set(CREDENTIAL_VARIABLES.flatMap((name) => [name, `${name}_FILE`]));

export function isCredentialVariable(name: string): boolean {
  return CREDENTIAL_VARIABLE_NAMES.has(name);
}

export interface CredentialSources {
  /** Values of the credential variables that are set. */
  values: string[];
  /** Files named by the `*_FILE` twins that are set. */
  files: string[];
}

export function credentialSources(env: Readonly<Record<string, string | undefined>>): CredentialSources {
  const values: string[] = [];
  const files: string[] = [];
  for (const name of CREDENTIAL_VARIABLES) {
    const value = env[name];
    if (value) values.push(value);
    const file = env[`${name}_FILE`];
    if (file) files.push(file);
  }
  return { values, files };
}
