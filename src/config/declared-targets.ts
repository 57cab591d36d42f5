/** The targets obsync.yaml declares, as far as they can be read before they are resolved, and the checks of their names. */
import type { Document, LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import type { Variant } from '../core/ports.js';
import { positionAt } from '../manifests/positions.js';
import { EMBEDDED_NAME, ENV_TARGET_NAME } from './target-resolution.js';
import { setOwn } from '../core/json.js';

/** A target as declared: its name and API always; its own manifests and vars once resolved. */
export interface DeclaredTarget {
  name: string;
  /** The API it speaks (a sandbox target: the one it simulates); undefined when the variant is invalid. */
  api: Variant | undefined;
  /** Its own manifest paths (as written, relative to the config) and vars, when resolved. */
  tree?: TargetTree;
  /**
   * Its own manifest paths as written, known even when the target is not in use (a list of plain
   * strings); 'templated' when the list holds a `${…}` that only resolving the target would tell.
   */
  listed?: readonly string[] | 'templated';
}

export interface TargetTree {
  manifests: readonly string[];
  vars: Readonly<Record<string, string>>;
}

export function targetItems(value: unknown): unknown[] {
  const targets = typeof value === 'object' && value !== null ? (value as { targets?: unknown }).targets : undefined;
  return Array.isArray(targets) ? targets : [];
}

export function declaredOf(item: unknown): DeclaredTarget {
  const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const name = typeof record.name === 'string' ? record.name : '';
  const variant = record.variant;
  const api =
    variant === 'hosted' || variant === 'self-hosted'
      ? variant
      : variant === 'sandbox'
        ? record.api === 'self-hosted'
          ? 'self-hosted'
          : 'hosted'
        : undefined;
  return { name, api, ...listedManifests(record.manifests) };
}

function listedManifests(value: unknown): Pick<DeclaredTarget, 'listed'> {
  if (!Array.isArray(value)) return {};
  return { listed: value.every((p) => typeof p === 'string' && !p.includes('${')) ? (value as string[]) : 'templated' };
}

export function duplicateNames(
  declared: readonly DeclaredTarget[],
  base: { file: string; doc: Document; lineCounter: LineCounter },
): Diagnostic[] {
  const seen = new Map<string, number>();
  const out: Diagnostic[] = [];
  declared.forEach((d, index) => {
    const first = seen.get(d.name);
    if (first === undefined) {
      seen.set(d.name, index);
      return;
    }
    const pos = positionAt(base.doc, base.lineCounter, ['targets', index, 'name']);
    out.push({
      severity: 'error',
      code: 'duplicate-target',
      message: `target '${d.name}' is declared twice (also targets[${first}]): each target needs its own name`,
      file: base.file,
      ...pos,
      path: `targets[${index}].name`,
    });
  });
  return out;
}

/** `notifications[].targets` may name only targets the daemon can have (declared ones; without any, the environment's or the sandbox). */
export function unknownNotificationTargets(
  value: unknown,
  declared: readonly DeclaredTarget[],
  base: { file: string; doc: Document; lineCounter: LineCounter },
): Diagnostic[] {
  const sinks = typeof value === 'object' && value !== null ? (value as { notifications?: unknown }).notifications : undefined;
  if (!Array.isArray(sinks)) return [];
  const names = declared.length > 0 ? declared.map((d) => d.name) : [ENV_TARGET_NAME, EMBEDDED_NAME];
  const out: Diagnostic[] = [];
  sinks.forEach((sink: unknown, i) => {
    const targets = typeof sink === 'object' && sink !== null ? (sink as { targets?: unknown }).targets : undefined;
    if (!Array.isArray(targets)) return;
    targets.forEach((name: unknown, j) => {
      if (typeof name !== 'string' || names.includes(name)) return;
      const path = ['notifications', i, 'targets', j];
      out.push({
        severity: 'error',
        code: 'unknown-target',
        message:
          `notifications[${i}].targets names '${name}', which is not a target here: ` +
          `${declared.length > 0 ? 'obsync.yaml declares' : 'the targets are'} ${names.join(', ')}`,
        file: base.file,
        ...positionAt(base.doc, base.lineCounter, path),
        path: formatPath(path),
      });
    });
  });
  return out;
}

/** Var values as they are substituted: numbers and booleans in their YAML spelling. */
export function stringVars(vars: Readonly<Record<string, string | number | boolean>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars ?? {})) setOwn(out, k, String(v));
  return out;
}
