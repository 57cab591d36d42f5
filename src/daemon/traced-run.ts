/** A daemon run in its root span when telemetry is on (obsync.run: target, variant, mode, trigger, result). */
import type { Telemetry } from '../telemetry/api.js';
import { ATTR, SPAN } from '../telemetry/names.js';
import type { RunOutcome } from './target-run.js';

export interface RunLabels {
  target: string;
  variant: string;
  mode: string;
  triggers: Iterable<string>;
}

export function tracedRun(telemetry: Telemetry | undefined, labels: RunLabels, run: () => Promise<RunOutcome>): Promise<RunOutcome> {
  if (telemetry?.enabled !== true) return run();
  const attributes = {
    [ATTR.target]: labels.target,
    [ATTR.variant]: labels.variant,
    [ATTR.mode]: labels.mode,
    [ATTR.trigger]: [...labels.triggers].join(','),
  };
  return telemetry.span(SPAN.run, attributes, async (span) => {
    try {
      const outcome = await run();
      span.setAttributes({ [ATTR.result]: outcome.result === 'invalid-manifests' ? 'invalid_manifests' : outcome.result });
      if (outcome.result !== 'success') span.fail(outcome.error ?? outcome.result);
      return outcome;
    } catch (err) {
      span.setAttributes({ [ATTR.result]: 'failure' });
      throw err;
    }
  });
}
