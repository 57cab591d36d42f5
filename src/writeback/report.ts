/**
 * A pull's result as text for a terminal or a CI log: per file the fields changed (file:line,
 * both values), the documents removed and the manifests made, then the conflicts (file:line, both
 * values, what to do). Values the service holds pass the one scrubber and the one output pass for
 * service text (printable), like every plan.
 */
import { relative } from 'node:path';
import { printable } from '../core/printable.js';
import { scrub } from '../core/scrub.js';
import type { Json } from '../core/wire.js';
import type { PullResult } from './result.js';

export function renderPull(result: PullResult, options: { cwd: string; check: boolean }): string {
  const at = (file: string) => relative(options.cwd, file) || file;
  const lines: string[] = [];
  for (const f of result.files) {
    const state = f.conflicted
      ? ' (left as it is: a conflict in it)'
      : f.before === null
        ? ' (new)'
        : f.after === null
          ? ' (deleted: no document left)'
          : '';
    lines.push(`${at(f.file)}${state}`);
    for (const e of f.edits) lines.push(`  ${at(e.file)}:${e.line}  ${e.address} ${e.path}: ${value(e.before)} → ${value(e.after)}`);
    for (const r of f.removed) lines.push(`  ${at(r.file)}:${r.line}  ${r.address} removed (deleted on the service)`);
    for (const c of f.created) {
      const how = c.adoption.by === 'plan' ? 'the next apply adopts it by its name' : `adopt it with: ${c.adoption.command}`;
      lines.push(`  ${c.address} (id ${c.id}) written; ${how}${c.variables.length > 0 ? `; set ${c.variables.join(', ')}` : ''}`);
    }
  }
  for (const d of result.deletedOnService)
    lines.push(`note: ${d.address} (${at(d.file)}:${d.line}) was deleted on the service; pull --prune removes its manifest`);
  for (const c of result.conflicts) {
    const both = [
      c.manifest !== undefined ? `manifest ${value(c.manifest)}${c.written !== undefined ? ` (written ${c.written})` : ''}` : undefined,
      c.live !== undefined ? `live ${value(c.live)}` : undefined,
    ].filter((s) => s !== undefined);
    lines.push(`conflict: ${at(c.file)}:${c.line}  ${c.address} ${c.path} (${c.reason})${both.length > 0 ? `: ${both.join(', ')}` : ''}`);
    lines.push(`  ${c.message}`);
  }
  for (const e of result.errors) lines.push(`error: target '${e.target}': ${e.message}`);
  const changed = result.files.filter((f) => !f.conflicted && f.before !== f.after).length;
  const verb = options.check ? 'would change' : 'changed';
  lines.push(
    changed === 0 && result.conflicts.length === 0
      ? 'The manifests are up to date with the live objects.'
      : `${changed} file${changed === 1 ? '' : 's'} ${verb}, ${result.conflicts.length} ` +
          `conflict${result.conflicts.length === 1 ? '' : 's'}.`,
  );
  return `${lines.map((line) => printable(scrub(line))).join('\n')}\n`;
}

function value(v: Json | undefined): string {
  if (v === undefined) return '(none)';
  const text = JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/** One GitHub annotation's content: where, how severe, what. */
export interface PullAnnotation {
  severity: 'error' | 'warning' | 'notice';
  file: string;
  line: number;
  message: string;
}

/**
 * The pull as annotations on the manifests' lines (`--output github`): each field pulled (or that
 * would be) a notice, each object deleted on the service a warning, each conflict an error.
 */
export function pullAnnotations(result: PullResult, at: (file: string) => string): PullAnnotation[] {
  const out: PullAnnotation[] = [];
  for (const f of result.files) {
    if (f.conflicted || f.before === f.after) continue;
    for (const e of f.edits)
      out.push({
        severity: 'notice',
        file: at(e.file),
        line: e.line,
        message: `${e.address} ${e.path}: ${value(e.before)} → ${value(e.after)} (live)`,
      });
    for (const r of f.removed)
      out.push({ severity: 'notice', file: at(r.file), line: r.line, message: `${r.address} removed: deleted on the service` });
  }
  for (const d of result.deletedOnService)
    out.push({
      severity: 'warning',
      file: at(d.file),
      line: d.line,
      message: `${d.address} was deleted on the service; pull --prune removes its manifest`,
    });
  for (const c of result.conflicts)
    out.push({ severity: 'error', file: at(c.file), line: c.line, message: `${c.address} ${c.path} (${c.reason}): ${c.message}` });
  return out.map((a) => ({ ...a, message: scrub(a.message) }));
}
