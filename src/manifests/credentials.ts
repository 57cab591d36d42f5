/**
 * obsync's own credential variables (DESIGN §3). `${env:...}` may use them only in sensitive
 * fields (manifests and obsync.yaml alike), and no other field may carry their values (or the
 * contents of the files their `*_FILE` twins name).
 */
export const CREDENTIAL_VARIABLES = ['OBSYNC_API_KEY', 'OBSYNC_KEY_ID', 'OBSYNC_KEY_SECRET', 'OBSYNC_STATE_URL'] as const;

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
