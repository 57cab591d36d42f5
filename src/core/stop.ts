/**
 * A graceful stop (the first Ctrl-C during apply): the run's signal is aborted with this reason,
 * so no new step starts, but what is already under way — a request on the wire, the wait before
 * its retry — is left to finish. Any other abort reason cancels in-flight work at once.
 */
export class StopRequested extends Error {
  override readonly name = 'StopRequested';
  constructor() {
    super('stop requested: no new step starts');
  }
}

/** Whether `signal` asks to cancel work already under way (a graceful stop does not). */
export function cancelsInFlight(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && !(signal.reason instanceof StopRequested);
}
