/** A pipe's live states (hosted-api §3.9) and the desired-state vocabulary they map to. */
const STOPPED_STATES = new Set(['Stopped', 'Stopping', 'Paused', 'Pausing']);
const RUNNING_STATES = new Set(['Running', 'Provisioning', 'Setup', 'Snapshot', 'Modifying', 'Resync', 'Unknown']);
/** States a pipe passes through on its way elsewhere (hosted-api §3.9). */
export const TRANSITIONAL = new Set(['Provisioning', 'Stopping', 'Pausing', 'Modifying', 'Resync', 'Setup', 'Unknown']);

/** The desired-state vocabulary (running | stopped) for a live state; other states keep their own name. */
export function stateOf(live: string): string {
  if (RUNNING_STATES.has(live)) return 'running';
  if (STOPPED_STATES.has(live)) return 'stopped';
  return live.toLowerCase();
}
