/**
 * `obsync pull`, as a library (the CLI and the daemon's write-back call it): given each selected
 * target's plan input (its manifests, inventory and the live state already read — pure from
 * here) and the manifest files' text, the new text of every file to change — minimal edits made
 * in place (./yaml-file.ts), documents of objects deleted on the service removed (with prune),
 * new manifests for unmanaged objects an opt-in rule selects — with the conflicts pull will not
 * decide. Nothing is written here: ./write.ts writes a result.
 */
import type { Address, AdoptPolicy } from '../core/plan.js';
import { planWithContext, type PlanInput } from '../planner/plan.js';
import { formatEditPath } from './edits.js';
import { LiveNames } from './live-manifest.js';
import { conflictMessage, decide } from './merge.js';
import { documentKey, targetAsks, type DocumentAsk, type TargetPlan } from './proposals.js';
import type { FieldEdit, FilePull, PullConflict, PullResult, RemovedDocument } from './result.js';
import { newManifests, type UnmanagedRule } from './unmanaged.js';
import { editFile, lineAt, parseFile, type YamlFile } from './yaml-file.js';

export interface PullTarget {
  target: string;
  adopt: AdoptPolicy;
  /** What a plan of the target is made from (engine/run.ts `planInputOf`), against the live state read. */
  input: PlanInput;
  /** Where new manifests of unmanaged objects go (export's layout below it); needed with `include`. */
  newManifestsDir?: string;
}

export interface PullOptions {
  /** Remove the documents of owned objects deleted on the service (else they are reported). */
  prune: boolean;
  /** Unmanaged objects to write as new manifests (`--include-unmanaged`). */
  include?: UnmanagedRule;
  /** Targets not pulled here that read the document at (file, line) too (the daemon pulls one target): it is then a conflict. */
  otherReaders?: (file: string, line: number) => readonly string[];
}

/** The text of a manifest file (absolute path), or undefined when it cannot be read. */
export type ReadText = (path: string) => string | undefined;

export function computePull(targets: readonly PullTarget[], read: ReadText, options: PullOptions): PullResult {
  const result: PullResult = { files: [], conflicts: [], deletedOnService: [], errors: [] };
  const files = new Map<string, YamlFile | undefined>();
  const fileOf = (path: string) => {
    if (!files.has(path)) {
      const text = read(path);
      files.set(path, text === undefined ? undefined : parseFile(path, text));
    }
    return files.get(path);
  };
  const plans = targets.map((t) => planTarget(t));
  const readers = documentReaders(targets);
  const byDocument = new Map<string, DocumentAsk[]>();
  for (const t of plans) {
    for (const d of t.plan.diagnostics) if (d.severity === 'error') result.errors.push({ ...d, target: t.target });
    const asks = targetAsks(t, fileOf, options.prune);
    for (const a of asks.asks) byDocument.set(documentKey(a.file, a.line), [...(byDocument.get(documentKey(a.file, a.line)) ?? []), a]);
    for (const d of asks.deleted) result.deletedOnService.push({ ...d, targets: [t.target] });
    for (const l of asks.lost)
      result.conflicts.push({
        ...l,
        path: 'spec',
        reason: 'not-editable',
        message: 'the file changed since it was loaded: run pull again',
        targets: [t.target],
      });
  }
  const perFile = new Map<
    string,
    { edits: Map<number, DocumentAsk['edits']>; removed: Set<number>; fields: FieldEdit[]; gone: RemovedDocument[]; conflicted: boolean }
  >();
  const slot = (file: string) => {
    let s = perFile.get(file);
    if (!s) perFile.set(file, (s = { edits: new Map(), removed: new Set(), fields: [], gone: [], conflicted: false }));
    return s;
  };
  for (const [key, asks] of byDocument) {
    const [first] = asks;
    const yaml = first ? fileOf(first.file) : undefined;
    if (!first || !yaml) continue;
    const others = options.otherReaders?.(first.file, first.line) ?? [];
    const decision = decide(asks, [...new Set([...(readers.get(key) ?? [first.target]), ...others])], yaml, others);
    const s = slot(first.file);
    if (decision.kind === 'conflicts') {
      result.conflicts.push(...decision.conflicts);
      s.conflicted = true;
    } else if (decision.kind === 'remove') {
      s.removed.add(first.index);
      s.gone.push({ address: first.address, file: first.file, line: first.line, targets: asks.map((a) => a.target) });
    } else if (first.edits.length > 0) {
      s.edits.set(first.index, first.edits);
      s.fields.push(...fieldEdits(first, yaml));
    }
  }
  for (const [path, s] of perFile) {
    const yaml = fileOf(path);
    if (!yaml) continue;
    if (s.edits.size === 0 && s.removed.size === 0) continue;
    const made = editFile(yaml, s.edits, s.removed);
    if ('error' in made) {
      const address = s.fields[0]?.address ?? s.gone[0]?.address;
      if (address) result.conflicts.push(notEditable(address, path, yaml, made.document, made.error));
      continue;
    }
    result.files.push({
      file: path,
      before: yaml.text,
      after: made.text,
      edits: s.fields,
      removed: s.gone,
      created: [],
      conflicted: s.conflicted,
    });
  }
  if (options.include) addNewManifests(result, plans, targets, options.include, read);
  result.files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return result;
}

function planTarget(t: PullTarget): TargetPlan & { newManifestsDir?: string } {
  const { plan, context } = planWithContext(t.input);
  return { target: t.target, adopt: t.adopt, plan, context, names: new LiveNames(context) };
}

/** Per document (file and line), the targets whose manifests declare it. */
function documentReaders(targets: readonly PullTarget[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of targets)
    for (const r of t.input.desired) {
      const key = documentKey(r.source.file, r.source.line);
      const list = out.get(key) ?? [];
      if (!list.includes(t.target)) list.push(t.target);
      out.set(key, list);
    }
  return out;
}

function fieldEdits(ask: DocumentAsk, yaml: YamlFile): FieldEdit[] {
  return ask.shown.map(({ edit, before }) => ({
    address: ask.address,
    file: ask.file,
    line: lineAt(yaml, ask.index, edit.op === 'add' ? [...edit.path, edit.key] : edit.op === 'insert' ? edit.path : edit.path),
    path: formatEditPath(edit.op === 'add' ? [...edit.path, edit.key] : edit.op === 'insert' ? [...edit.path, edit.index] : edit.path),
    op: edit.op,
    ...(before === undefined ? {} : { before }),
    ...(edit.op === 'remove' ? {} : { after: edit.value }),
  }));
}

function notEditable(address: Address, file: string, yaml: YamlFile, document: number, error: string): PullConflict {
  return {
    address,
    file,
    line: lineAt(yaml, document, []),
    path: 'spec',
    reason: 'not-editable',
    message: `${error}: ${conflictMessage('not-editable')}`,
    targets: [],
  };
}

function addNewManifests(
  result: PullResult,
  plans: readonly TargetPlan[],
  targets: readonly PullTarget[],
  rule: UnmanagedRule,
  read: ReadText,
): void {
  const declared = new Set(targets.flatMap((t) => t.input.desired.map((r) => r.address)));
  const written = new Set<string>();
  for (const [i, t] of plans.entries()) {
    const dir = targets[i]?.newManifestsDir;
    if (dir === undefined) continue;
    const matched = new Set(t.plan.steps.flatMap((s) => (s.id === undefined ? [] : [s.id])));
    const { created, taken } = newManifests({
      target: t.target,
      adopt: t.adopt,
      context: t.context,
      names: t.names,
      matched,
      rule,
      dir,
      declared,
    });
    // A new object whose name or file is taken is not written: a conflict at the top of that file.
    const notWritten = (m: { address: Address; file: string }, message: string) =>
      result.conflicts.push({
        address: m.address,
        file: m.file,
        line: 1,
        path: 'metadata.name',
        reason: 'not-editable',
        message,
        targets: [t.target],
      });
    for (const m of taken)
      notWritten(
        m,
        `a manifest already declares ${m.address}: the new object (id ${m.id}) is not written; export it by hand under another name`,
      );
    for (const m of created) {
      if (written.has(m.file) || read(m.file) !== undefined) {
        notWritten(m, `${m.file} already exists: the new object (id ${m.id}) is not written`);
        continue;
      }
      written.add(m.file);
      result.files.push({ file: m.file, before: null, after: m.text, edits: [], removed: [], created: [m], conflicted: false });
    }
  }
}

/** The files to write: every changed file not left whole for a conflict in it. */
export function filesToWrite(result: PullResult): FilePull[] {
  return result.files.filter((f) => !f.conflicted && f.before !== f.after);
}
