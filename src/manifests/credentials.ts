/**
 * Every credential the process authenticates with, as the environment gives it: obsync's own
 * credential variables (DESIGN §3) — their values and the contents of the files their `*_FILE`
 * twins name — and the credentials the libraries obsync uses read for themselves (`implicitCredentials`).
 * They are credentials wherever they appear, so no non-sensitive field may carry them (./carried.ts),
 * whichever variable or file brought them in; the CLI tells the scrubber the implicit ones too.
 */
import { join } from 'node:path';
import { readRegularFile } from './files.js';
import type { SensitiveValue } from './carried.js';

export const CREDENTIAL_VARIABLES = [
  'OBSYNC_API_KEY',
  'OBSYNC_KEY_ID',
  'OBSYNC_KEY_SECRET',
  'OBSYNC_STATE_URL',
  'OBSYNC_STATUS_TOKEN',
  'OBSYNC_FORGE_TOKEN',
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

/**
 * The values of the credential variables that are set, and of the files their `*_FILE` twins name (with the state URL's password), and the
 * implicit credentials.
 */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): SensitiveValue[] {
  const out: SensitiveValue[] = implicitCredentials(env);
  for (const name of CREDENTIAL_VARIABLES) {
    const value = env[name];
    if (value) out.push(...withPassword(value, `the value of ${name}`));
    const file = env[`${name}_FILE`];
    let contents: string | undefined;
    try {
      contents = file ? readRegularFile(file).trim() : undefined;
    } catch {
      // An unreadable credential file is reported where the target is resolved.
    }
    if (contents) out.push(...withPassword(contents, `the contents of ${name}_FILE`));
    if (name === 'OBSYNC_STATE_URL')
      for (const url of [value, contents])
        if (url) out.push(...connectionKeys(url).map((key) => ({ value: key, origin: `the TLS key ${name} names` })));
  }
  return out;
}

/**
 * The client key a PostgreSQL URL names (`?sslkey=/path/client.key`): node-postgres reads the file
 * (pg-connection-string) and logs in with it, so its contents are a credential. A file that cannot
 * be read adds nothing: the connection fails and says so.
 */
export function connectionKeys(url: string): string[] {
  let path: string | null;
  try {
    path = new URL(url).searchParams.get('sslkey');
  } catch {
    return [];
  }
  if (!path) return [];
  try {
    const key = readRegularFile(path).trim();
    return key === '' ? [] : [key];
  } catch {
    return [];
  }
}

/** A value and, for a URL with credentials (a state URL), its password on its own (in the userinfo, or a `password` parameter). */
export function withPassword(value: string, origin: string): SensitiveValue[] {
  const out = [{ value, origin }];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      const password = url.password;
      if (password !== '')
        out.push(
          { value: password, origin: `the password in ${origin}` },
          { value: decodeURIComponent(password), origin: `the password in ${origin}` },
        );
      const parameter = url.searchParams.get('password');
      if (parameter) out.push({ value: parameter, origin: `the password in ${origin}` });
    } catch {
      // Not a URL after all: the whole value is still guarded.
    }
  }
  return out;
}

/** The proxy variables undici's EnvHttpProxyAgent is given (src/cli/network.ts reads either case). */
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'] as const;

/**
 * The credentials drivers and libraries read without obsync passing them (issue 53, item 1):
 * - node-postgres logs in to the PostgreSQL state with PGPASSWORD when the URL has no password,
 *   and else with a line of the password file (PGPASSFILE, else ~/.pgpass, or
 *   %APPDATA%\postgresql\pgpass.conf on Windows): every password in that file counts;
 * - undici sends the user and password of HTTP_PROXY / HTTPS_PROXY (either case) to the proxy,
 *   as `Proxy-Authorization: Basic base64(user:password)`: the password, `user:password` and
 *   that token count (a proxy URL without them is no credential).
 * Nothing else obsync loads reads a credential by itself: the service's keys, the status token and
 * the sinks' URLs come from obsync's own settings. A file that cannot be read adds nothing (the driver
 * would not read it either).
 */
export function implicitCredentials(env: Readonly<Record<string, string | undefined>>): SensitiveValue[] {
  const out: SensitiveValue[] = [];
  if (env.PGPASSWORD) out.push({ value: env.PGPASSWORD, origin: 'the value of PGPASSWORD' });
  for (const file of passwordFiles(env)) {
    let text: string;
    try {
      text = readRegularFile(file);
    } catch {
      continue;
    }
    for (const password of pgpassPasswords(text)) out.push({ value: password, origin: `a password in ${file}` });
  }
  for (const name of PROXY_VARIABLES) {
    const value = env[name];
    if (value) out.push(...proxyCredentials(value, name));
  }
  return out;
}

/** Where node-postgres (its pgpass module) looks for the password file. */
function passwordFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  if (env.PGPASSFILE) return [env.PGPASSFILE];
  const files = [join(env.HOME || './', '.pgpass')];
  if (env.APPDATA) files.push(join(env.APPDATA, 'postgresql', 'pgpass.conf'));
  return files;
}

/** The password of every line (`host:port:database:user:password`, `\:` and `\\` escaped), as written and unescaped. */
export function pgpassPasswords(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    if (line.trimStart().startsWith('#')) continue;
    let fields = 0;
    let at = 0;
    for (; at < line.length && fields < 4; at++) {
      if (line[at] === '\\') at++;
      else if (line[at] === ':') fields++;
    }
    const raw = line.slice(at);
    if (fields < 4 || raw === '') continue;
    out.add(raw);
    out.add(raw.replace(/\\(.)/g, '$1'));
  }
  return [...out];
}

function proxyCredentials(value: string, name: string): SensitiveValue[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  if (url.username === '' && url.password === '') return [];
  const user = safeDecode(url.username);
  const password = safeDecode(url.password);
  const origin = `the user and password of ${name}`;
  const out = [
    ...withPassword(value, `the value of ${name}`),
    { value: `${user}:${password}`, origin },
    { value: Buffer.from(`${user}:${password}`).toString('base64'), origin },
  ];
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
