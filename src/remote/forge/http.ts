/**
 * JSON over HTTP to a forge's REST API (GitHub, GitLab), for write-back proposals: one request at
 * a time, a deadline per request, answers bounded and parsed with zod at the edge. The token is a
 * `Secret` (registered with the one scrubber) revealed only into the auth header; an error names
 * the request and status and carries a scrubbed excerpt of the answer, never the token.
 */
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import { ObsyncError, requestLabel } from '../../core/errors.js';
import { scrub } from '../../core/scrub.js';
import type { Secret } from '../../core/secret.js';
import { classifyFailure, createDispatcher, type ProxySettings } from '../network.js';

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class ForgeError extends ObsyncError {
  override readonly name = 'ForgeError';
  constructor(
    readonly request: string,
    readonly status: number,
    detail: string,
  ) {
    super('FORGE', scrub(`${request} answered ${status === 0 ? 'nothing' : status}: ${detail}`), {
      hint:
        status === 401 || status === 403
          ? 'check writeBack.forge.token: it must be valid and allowed to open pull requests on writeBack.forge.project'
          : status === 404
            ? 'check writeBack.forge.project and writeBack.forge.apiUrl'
            : 'the next run tries again',
    });
  }
}

export interface ForgeHttpOptions {
  apiUrl: string;
  /** The auth header's name and value (the value holds the token). */
  auth: { header: string; value: Secret };
  /** Headers every request carries (Accept, API version). */
  headers?: Readonly<Record<string, string>>;
  proxy?: ProxySettings | undefined;
  timeoutMs?: number;
}

export interface ForgeHttp {
  send<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string, answer: z.ZodType<T>, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export function forgeHttp(opts: ForgeHttpOptions): ForgeHttp {
  const api = new URL(opts.apiUrl);
  const prefix = api.pathname.replace(/\/+$/, '');
  const dispatcher: Dispatcher = createDispatcher(api.origin, 1, opts.proxy);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return {
    async send(method, path, answer, body) {
      const fullPath = `${prefix}${path}`;
      const label = requestLabel({ method, path: fullPath.split('?')[0] ?? fullPath, host: api.host });
      const signal = AbortSignal.timeout(timeoutMs);
      const headers: Record<string, string> = {
        'user-agent': 'obsync',
        ...opts.headers,
        [opts.auth.header]: opts.auth.value.reveal(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: api.origin,
          path: fullPath,
          method,
          headers,
          signal,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (err) {
        throw new ForgeError(label, 0, classifyFailure(err, signal.aborted).detail);
      }
      const text = await boundedText(res, label);
      if (res.statusCode < 200 || res.statusCode >= 300) throw new ForgeError(label, res.statusCode, text.slice(0, 500));
      let json: unknown;
      try {
        json = text === '' ? null : JSON.parse(text);
      } catch {
        throw new ForgeError(label, res.statusCode, 'the answer is not JSON');
      }
      const parsed = answer.safeParse(json);
      if (!parsed.success)
        throw new ForgeError(
          label,
          res.statusCode,
          `unexpected answer: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      return parsed.data;
    },
    close: () => dispatcher.destroy(),
  };
}

async function boundedText(res: Dispatcher.ResponseData, label: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      res.body.destroy();
      throw new ForgeError(label, res.statusCode, `the answer is over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
