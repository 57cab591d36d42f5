/** The abort signals of a request: the caller's and the transport's close, and one attempt's with its timeout. */
import { setMaxListeners } from 'node:events';
import { cancelsInFlight } from '../core/stop.js';

/**
 * The caller's signal, also aborted when the transport closes. A graceful stop of the caller is
 * not passed on (what is under way finishes, and a later close still cancels it); any other abort
 * of the caller, and the transport's close, cancel everything.
 */
export function untilClosed(parent: AbortSignal | undefined, closing: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const fromParent = () => {
    if (cancelsInFlight(parent)) controller.abort(parent?.reason);
  };
  const fromClose = () => controller.abort(closing.reason);
  // Every request under way listens here until it ends (the listener is removed then): many at
  // once is by design (a plan's backtest queries wait in the pacer together), not a leak.
  for (const s of [parent, closing]) if (s) setMaxListeners(0, s);
  if (closing.aborted) fromClose();
  else if (parent?.aborted) fromParent();
  parent?.addEventListener('abort', fromParent, { once: true });
  closing.addEventListener('abort', fromClose, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      parent?.removeEventListener('abort', fromParent);
      closing.removeEventListener('abort', fromClose);
    },
  };
}

/**
 * One request's signal: the caller's abort or the deadline. Not `AbortSignal.any`: on Node 20 every
 * signal it derives from a long-lived parent (the daemon's) stays reachable, a leak per request.
 */
export function requestSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; release: () => void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no response within ${timeoutMs} ms`));
  }, timeoutMs);
  // A graceful stop lets a request already on its way finish; any other abort cancels it.
  const onAbort = () => {
    if (cancelsInFlight(parent)) controller.abort(parent?.reason);
  };
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    release: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
