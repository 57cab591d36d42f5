/**
 * The URL settings — a target's baseUrl (and OBSYNC_BASE_URL), a notification sink's url,
 * state.url (and OBSYNC_STATE_URL), HTTP(S)_PROXY — under one rule with one message: the form
 * wanted and what is wrong with the value (`baseUrl: hyperdx.example.com` has no scheme), never
 * the value itself (a sink's, the state's or a proxy's URL may carry a secret). In obsync.yaml the
 * schema places it at its file:line; from the environment the message names the variable.
 */
import * as z from 'zod';
import { HTTP_URL_PATTERN } from '../kinds/rules.js';

const LEFT_AS_WRITTEN = /\$\{(env|file|var):/;

export interface UrlForm {
  schemes: readonly string[];
  /** What to write, as a reader would: `http(s)://host[:port]`. */
  form: string;
  /** Whether a host is required (a PostgreSQL URL may name a socket directory instead). */
  host: boolean;
}

export const HTTP_URL: UrlForm = { schemes: ['https', 'http'], form: 'http(s)://host[:port][/path]', host: true };
export const POSTGRES_URL: UrlForm = {
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user:password@host:5432/database',
  host: false,
};

/** What is wrong with a URL setting's value, or undefined when it has the form wanted. */
export function urlProblem(value: string, want: UrlForm): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase();
  const schemes = want.schemes.map((s) => `${s}://`).join(' or ');
  if (scheme === undefined) return `it has no scheme: write ${schemes} in front of the host`;
  if (!want.schemes.includes(scheme)) return `it starts with ${scheme}://, not ${schemes}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL (check the host and the port)';
  }
  if (want.host && url.hostname === '') return 'it names no host';
  return undefined;
}

/** `the base URL must be http(s)://host[:port][/path] (e.g. https://api.example.com): it has no scheme: …`. */
export function urlMessage(what: string, want: UrlForm, example: string, problem: string): string {
  return `${what} must be ${want.form} (e.g. ${example}): ${problem}`;
}

/** A URL setting of obsync.yaml: one message whatever is wrong; the editor schema keeps its pattern and `format: uri`. */
export function urlSetting(what: string, want: UrlForm, example: string) {
  const error = (issue: { input?: unknown }) =>
    urlMessage(
      what,
      want,
      example,
      typeof issue.input === 'string' ? (urlProblem(issue.input, want) ?? 'it is not a URL') : 'it is not text',
    );
  const text = z.string({ error });
  const shaped = want === HTTP_URL ? text.regex(new RegExp(HTTP_URL_PATTERN), { error, abort: true }) : text.min(1, { error, abort: true });
  // A reference left as written (state.url while a command defers the state) is checked once resolved (the connection checks it again).
  const checked = shaped.refine((value) => LEFT_AS_WRITTEN.test(value) || urlProblem(value, want) === undefined, { error });
  return want === HTTP_URL ? checked.meta({ format: 'uri' }) : checked;
}
