/**
 * What pull does with one document, given what every target that reads it asks (./proposals.ts):
 * a document one target reads takes that target's edits (or its removal); one several targets
 * read — a base folder of several environments — is changed only when every one of them asks
 * exactly the same, else each differing field is a conflict naming the targets and their values.
 * A document edited since the last apply, or with an edit pull refuses, is left whole.
 */
import { isDeepStrictEqual } from 'node:util';
import { setOwn } from '../core/json.js';
import type { Json } from '../core/wire.js';
import { SENSITIVE } from '../core/scrub.js';
import { editPath, editValue, formatEditPath, type Edit } from './edits.js';
import type { Refused } from './object-pull.js';
import type { DocumentAsk } from './proposals.js';
import type { PullConflict } from './result.js';
import { lineAt, type YamlFile } from './yaml-file.js';

export type DocumentDecision =
  | { kind: 'edit'; ask: DocumentAsk }
  | { kind: 'remove'; ask: DocumentAsk }
  | { kind: 'conflicts'; conflicts: PullConflict[] };

const MESSAGES: Record<PullConflict['reason'], string> = {
  interpolated: 'the manifest writes this value as a ${…} reference: change the variable (or the file it reads), not the manifest',
  sensitive: 'a sensitive value differs: pull never writes one; set the secret where the manifest reads it, or revert it on the service',
  anchor: 'the value is shared through a YAML anchor: editing it would change the other places too; edit it by hand',
  'targets-differ':
    'several targets read this manifest and their live values differ (or were not all read): make them agree on the service and pull ' +
    'them together, or give each target its own manifest',
  'manifest-changed':
    'the manifest was changed since the last apply: apply it (or revert it) before pulling, so that no edit is overwritten',
  unresolved: 'pull cannot express this difference in the manifest: edit it by hand, or revert it on the service',
  'not-editable': 'the file could not be edited safely: edit it by hand',
};

export function conflictMessage(reason: PullConflict['reason']): string {
  return MESSAGES[reason];
}

/** `notPulled`: readers whose live objects this pull did not read (targets not selected, or not the daemon's target). */
export function decide(
  asks: readonly DocumentAsk[],
  readers: readonly string[],
  file: YamlFile,
  notPulled: readonly string[] = [],
): DocumentDecision {
  const [first] = asks;
  if (!first) return { kind: 'conflicts', conflicts: [] };
  const base = { address: first.address, file: first.file, targets: asks.map((a) => a.target) };
  if (asks.some((a) => a.edited))
    return {
      kind: 'conflicts',
      conflicts: [{ ...base, line: first.line, path: 'spec', reason: 'manifest-changed', message: MESSAGES['manifest-changed'] }],
    };
  if (readers.length > 1 && !allAgree(asks, readers))
    return { kind: 'conflicts', conflicts: targetsDiffer(asks, readers, file, notPulled) };
  const refused = first.refused.map((r) => refusalConflict(first, r, file));
  if (refused.length > 0) return { kind: 'conflicts', conflicts: refused };
  return first.remove ? { kind: 'remove', ask: first } : { kind: 'edit', ask: first };
}

/** Every reader asks, and all ask the same edits (or the same removal) with nothing refused. */
function allAgree(asks: readonly DocumentAsk[], readers: readonly string[]): boolean {
  const [first] = asks;
  if (!first || asks.length !== readers.length) return false;
  return asks.every((a) => a.remove === first.remove && a.refused.length === 0 && isDeepStrictEqual(a.edits, first.edits));
}

function targetsDiffer(
  asks: readonly DocumentAsk[],
  readers: readonly string[],
  file: YamlFile,
  notPulled: readonly string[],
): PullConflict[] {
  const [first] = asks;
  if (!first) return [];
  const paths = new Map<string, Edit['path']>();
  for (const a of asks) for (const e of a.edits) paths.set(formatEditPath(editPath(e)), editPath(e));
  if (asks.some((a) => a.remove) || paths.size === 0) paths.set('spec', ['spec']);
  const out: PullConflict[] = [];
  for (const [shown, path] of paths) {
    const live: Record<string, Json> = {};
    for (const target of readers) {
      const ask = asks.find((a) => a.target === target);
      const edit = ask?.edits.find((e) => formatEditPath(editPath(e)) === shown);
      const value = ask?.remove
        ? '(deleted on the service)'
        : edit
          ? (editValue(edit) ?? '(removed)')
          : notPulled.includes(target)
            ? '(not read by this pull)'
            : '(as in the manifest)';
      setOwn(live, target, value);
    }
    out.push({
      address: first.address,
      file: first.file,
      line: lineAt(file, first.index, path),
      path: shown,
      reason: 'targets-differ',
      message: MESSAGES['targets-differ'],
      live,
      targets: [...readers],
    });
  }
  return out;
}

function refusalConflict(ask: DocumentAsk, r: Refused, file: YamlFile): PullConflict {
  const sensitive = r.reason === 'sensitive';
  // A plan's path (`tiles[p99].config`) names a document path only when it is one plain field.
  const field = r.change && /^[A-Za-z_]\w*$/.test(r.change.path) ? ['spec', r.change.path] : undefined;
  const path = field ? formatEditPath(field) : r.change ? r.change.path : formatEditPath(['spec', ...r.path]);
  const manifest = r.change ? r.change.before : r.manifest;
  const live = r.change ? r.change.after : r.live;
  return {
    address: ask.address,
    file: ask.file,
    line: lineAt(file, ask.index, field ?? (r.change ? ['spec'] : ['spec', ...r.path])),
    path,
    reason: r.reason,
    message: MESSAGES[r.reason],
    ...(manifest === undefined ? {} : { manifest: sensitive ? SENSITIVE : manifest }),
    ...(r.written === undefined ? {} : { written: r.written }),
    ...(live === undefined ? {} : { live: sensitive ? SENSITIVE : live }),
    targets: [ask.target],
  };
}
