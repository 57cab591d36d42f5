/** The end of an apply in text: warnings for fields the service did not keep, skipped prune, the counts. */
import type { ApplyReport, StepResult } from '../applier/context.js';
import type { Plan } from '../core/plan.js';
import { joinLines } from '../core/printable.js';
import { alongText, applySummary, deletedAlong } from './forms.js';
import type { Style } from './style.js';

/** `plan`: the plan applied (what the service deleted along with the steps, which objects were adopted). */
export function renderApplyText(report: ApplyReport, plan: Plan, style: Style, target?: string): string {
  const counts = applySummary(report.results, plan);
  const adopted = counts.adopt;
  const moved = counts.move;
  const applied = new Set(report.results.filter((r) => r.outcome === 'applied').map((r) => r.address));
  const along = deletedAlong(plan, (s) => applied.has(s.address));
  const lines: string[] = [''];
  for (const r of report.results) {
    for (const c of r.nonConvergent ?? [])
      lines.push(
        style(
          'yellow',
          `warning: ${r.address}: the service did not keep ${c.path}; it is left out of later plans until the manifest changes it`,
        ),
      );
  }
  if (report.pruneSkipped) lines.push(style('yellow', `Prune skipped: ${report.pruneSkipped}.`));
  const s = report.summary;
  // Steps the run stopped before (Ctrl-C): not started, not failures; unchanged ones are not counted.
  const stopped = report.results.filter((r) => r.notStarted);
  const notStarted = stopped.filter((r) => r.action !== 'noop').length;
  const skipped = s.skipped - stopped.length;
  const failed = s.failed + s.refused + skipped + (report.interrupted ? 0 : notStarted);
  const head = report.interrupted
    ? style('yellow', 'Apply interrupted:')
    : failed > 0
      ? style('red', 'Apply finished with errors:')
      : style('green', 'Apply complete:');
  const where = target === undefined ? '' : ` target '${target}':`;
  lines.push(
    `${head}${where} ${counts.create} created, ${counts.update} updated, ${counts.delete} ` +
      `deleted${alongText(along, 'deleted')}${adopted > 0 ? `, ${adopted} adopted` : ''}${moved > 0 ? `, ${moved} moved` : ''}, ` +
      `${s.failed} failed, ${s.refused} refused, ${skipped} ` +
      `skipped${notStarted > 0 || report.interrupted ? `, ${notStarted} not started` : ''}.`,
  );
  return joinLines(lines) + '\n';
}

/** A step's time, and how much of it was a wait for the rate limit (`1200 ms, 1000 ms of it waiting for the rate limit`). */
export function stepTime(r: Pick<StepResult, 'durationMs' | 'rateLimitWaitMs'>): string {
  const waited = r.rateLimitWaitMs ?? 0;
  return waited > 0 ? `${r.durationMs} ms, ${waited} ms of it waiting for the rate limit` : `${r.durationMs} ms`;
}
