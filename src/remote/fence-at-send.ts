/**
 * The write fence checked a second time at the last moment: when undici is about to write the
 * request to its socket (its `onRequestStart`, called synchronously before the first byte goes
 * out, after any wait for a free connection and any connect or proxy tunnel). The transport's own
 * check runs after the rate-limit wait; a process paused between the two (SIGSTOP, a frozen VM,
 * a long collection while a connection opens) would otherwise send, on resuming, a write its
 * lease no longer covers. What remains is the synchronous write itself: without a fencing token
 * the service checks, no client can close that last gap.
 */
import type { Dispatcher } from 'undici';
import type { WriteFence } from '../core/fence.js';

/** The fence of one request, carried in its dispatch options (undici passes them through to the interceptors unchanged). */
const FENCE = Symbol('obsync.fenceAtSend');

export type FencedRequestOptions = Dispatcher.RequestOptions & { [FENCE]?: WriteFence };

export function withFenceAtSend(options: Dispatcher.RequestOptions, fence: WriteFence | undefined): FencedRequestOptions {
  return fence ? { ...options, [FENCE]: fence } : options;
}

/** The dispatcher whose requests check their fence (if they carry one) just before they are written. */
export function fencingAtSend(dispatcher: Dispatcher): Dispatcher {
  return dispatcher.compose((dispatch) => (opts, handler) => {
    const fence = (opts as FencedRequestOptions)[FENCE];
    const write = { method: String(opts.method), path: String(opts.path) };
    return dispatch(opts, fence ? checkedBeforeWrite(handler, { check: () => fence.check(write) }) : handler);
  });
}

function checkedBeforeWrite(handler: Dispatcher.DispatchHandler, fence: WriteFence): Dispatcher.DispatchHandler {
  return {
    onRequestStart(controller, context) {
      handler.onRequestStart?.(controller, context);
      if (controller.aborted) return;
      try {
        fence.check();
      } catch (err) {
        // Aborted here, undici writes nothing: the request fails with the fence's own error.
        controller.abort(err instanceof Error ? err : new Error(String(err)));
      }
    },
    onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) =>
      handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}

/** The fence, telling `refused` what it refused before throwing it (a refusal at send is then the request's error). */
export function recordingRefusal(fence: WriteFence, refused: (err: unknown) => void): WriteFence {
  return {
    check: (write) => {
      try {
        fence.check(write);
      } catch (err) {
        refused(err);
        throw err;
      }
    },
  };
}
