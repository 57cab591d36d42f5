/**
 * ClickPipes calls while the hosted service is not running (hosted-api §3.4, §5): the API
 * answers 424 `FAILED_DEPENDENCY: … Current state: <state>`. Like the Terraform provider
 * (internal/api/clickpipe.go doClickPipeRequest), an idle service is woken (`PATCH
 * …/state {command: awake}`), polled until `running`, and the call is sent once more; a stopped
 * service is never started (stopping it was someone's decision): that is a clear error.
 * The wake-up is a write like any other: a read-only command's fence refuses it before it
 * leaves, and the call fails with `ServiceIdleError` (the engine then plans without pipes).
 */
import * as z from 'zod';
import { ApiError, ReadOnlyError, ServiceIdleError } from '../core/errors.js';
import { eitherExpected, type CallOptions } from '../core/ports.js';
import type { Logger } from '../log/logger.js';
import type { Api } from './api.js';
import { defaultSleep } from './pacing.js';
import { below } from './paths.js';

/** How long a woken service may take to run (the provider's serviceWakeMaxWaitSeconds). */
export const WAKE_TIMEOUT_MS = 10 * 60_000;

const serviceState = z.looseObject({ state: z.string() });
const NOT_RUNNING = /Current state: (\w+)/;

export interface WakeOptions {
  /** `/v1/organizations/{org}/services/{id}`. */
  servicePath: string;
  target: string;
  logger?: Logger | undefined;
  timeoutMs?: number;
}

export interface ServiceWaker {
  /** Runs a ClickPipes call; after the 424 of an idle service, wakes it and runs the call once more. */
  run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** The service state a 424 names, or undefined when the error is not that 424. */
function blockingState(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 424) return undefined;
  return NOT_RUNNING.exec(err.bodyExcerpt)?.[1] ?? 'not running';
}

/**
 * The call's options with an idle service's 424 expected: the waker answers it by waking the
 * service, so the request's span is not marked failed (a stopped service's 424 still is).
 */
export function expectingIdle<O extends CallOptions>(opts: O | undefined): O {
  const idle = (answer: { status: number; text: string }) => answer.status === 424 && NOT_RUNNING.exec(answer.text)?.[1] === 'idle';
  return { ...opts, expected: eitherExpected(opts?.expected, idle) } as O;
}

/** One waker per target: calls that meet the idle service together share one wake-up. */
export function serviceWaker(api: Api, opts: WakeOptions): ServiceWaker {
  let waking: Promise<void> | null = null;
  return {
    async run(call, signal) {
      try {
        return await call();
      } catch (err) {
        const state = blockingState(err);
        if (state === undefined) throw err;
        if (state !== 'idle') throw notRunning(err as ApiError, state, opts);
        waking ??= wake(api, opts, signal).finally(() => (waking = null));
        try {
          await waking;
        } catch (wakeErr) {
          // This command only reads: it does not wake the service, and says what it could not read.
          if (wakeErr instanceof ReadOnlyError) throw new ServiceIdleError(opts.target);
          throw wakeErr;
        }
        return call();
      }
    },
  };
}

function notRunning(err: ApiError, state: string, opts: WakeOptions): ApiError {
  return new ApiError({
    method: err.method,
    path: err.path,
    status: 424,
    retryable: false,
    bodyExcerpt: err.bodyExcerpt,
    code: 'SERVICE_NOT_RUNNING',
    message:
      `${err.method} ${err.path}: the ClickPipes API needs the service running, and target ` +
      `'${opts.target}''s service is ${state}; obsync wakes an idle service but never starts a stopped one`,
    hint: `start the service (ClickHouse Cloud console, or PATCH ${opts.servicePath}/state {"command": "start"}) and run again`,
    cause: err,
  });
}

async function wake(api: Api, opts: WakeOptions, signal: AbortSignal | undefined): Promise<void> {
  try {
    await api.call(
      { method: 'PATCH', path: below(opts.servicePath, 'state'), body: { command: 'awake' }, idempotent: true, signal },
      z.unknown(),
    );
  } catch (err) {
    // Not sent at all (the writer lease is gone, the run was stopped): that is the error, not the wake-up.
    if (!(err instanceof ApiError)) throw err;
    throw new ApiError({
      method: 'PATCH',
      path: below(opts.servicePath, 'state'),
      status: err.status,
      retryable: false,
      bodyExcerpt: err.bodyExcerpt,
      code: 'SERVICE_WAKE',
      message: `target '${opts.target}''s service is idle and waking it up failed: ${err instanceof Error ? err.message : String(err)}`,
      hint: 'the API key needs the right to change the service state; or wake the service in the ClickHouse Cloud console and run again',
      cause: err,
    });
  }
  opts.logger?.info({ target: opts.target, service: opts.servicePath }, 'service idle: woken for ClickPipes');
  await untilRunning(api, opts, signal);
  opts.logger?.info({ target: opts.target, service: opts.servicePath }, 'service awake');
}

/** Polls `GET /services/{id}` (0.5 s, ×1.5, at most 5 s apart) until `running`; `partially_running` is not enough. */
async function untilRunning(api: Api, opts: WakeOptions, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? WAKE_TIMEOUT_MS);
  let delay = 500;
  for (;;) {
    const { state } = await api.call({ method: 'GET', path: opts.servicePath, signal }, serviceState);
    if (state === 'running') return;
    if (Date.now() + delay > deadline) {
      throw new ApiError({
        method: 'GET',
        path: opts.servicePath,
        status: 200,
        retryable: true,
        code: 'SERVICE_WAKE',
        message:
          `target '${opts.target}''s service was woken but is still ${state} after ` +
          `${Math.round((opts.timeoutMs ?? WAKE_TIMEOUT_MS) / 1000)} s`,
        hint: 'run again once the service is running',
      });
    }
    await defaultSleep(delay, signal);
    delay = Math.min(delay * 1.5, 5_000);
  }
}
