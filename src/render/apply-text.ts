/** The end of an apply in text: warnings for fields the service did not keep, skipped prune, the counts. */
import type { ApplyReport } from '../applier/context.js';
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
  const failed = s.failed + s.refused + s.skipped;
  const head = failed > 0 ? style('red', 'Apply finished with errors:') : style('green', 'Apply complete:');
  const where = target === undefined ? '' : ` target '${target}':`;
  lines.push(
    `${head}${where} ${counts.create} created, ${counts.update} updated, ${counts.delete} deleted${alongText(along, 'deleted')}${adopted > 0 ? `, ${adopted} adopted` : ''}${moved > 0 ? `, ${moved} moved` : ''}, ${s.failed} failed, ${s.refused} refused, ${s.skipped} skipped.`,
  );
  return joinLines(lines) + '\n';
}
