/**
 * `${env:NAME}` and `${file:PATH}` in string values (DESIGN §2), resolved on the YAML tree so a
 * missing variable is reported at its own line. `$${...}` is a literal `${...}`. A plain
 * (unquoted) scalar that is exactly one reference takes the YAML type of its result, so
 * `port: ${env:PG_PORT}` is a number. File contents lose one trailing newline.
 */
import { isMap, isPair, isScalar, isSeq, parse as parseYaml, Scalar, type Document, type LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';

export interface InterpolationContext {
  file: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Reads `${file:...}` targets; `path` is already resolved against the manifest's directory. */
  readRef: (path: string) => string;
  resolvePath: (path: string) => string;
  allowMissingEnv: boolean;
}

const REF = /\$\$\{|\$\{(env|file):([^}]*)\}/g;
const WHOLE_REF = /^\$\{(env|file):[^}]*\}$/;

export function interpolateDocument(doc: Document, lc: LineCounter, ctx: InterpolationContext): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  walk(doc.contents, [], (node, path) => {
    if (typeof node.value !== 'string' || !node.value.includes('${')) return;
    const original = node.value;
    const pos = lc.linePos(node.range?.[0] ?? 0);
    const report = (missing: boolean, message: string) =>
      diagnostics.push({ severity: missing && ctx.allowMissingEnv ? 'warning' : 'error', code: missing ? 'missing-reference' : 'bad-reference', message, file: ctx.file, line: pos.line, col: pos.col, path: formatPath(path) });
    const value = original.replace(REF, (match, kind?: string, arg?: string) => {
      if (match === '$${') return '${';
      return resolveOne(kind ?? '', (arg ?? '').trim(), ctx, report);
    });
    node.value = node.type === Scalar.PLAIN && WHOLE_REF.test(original) ? typed(value) : value;
  });
  return diagnostics;
}

function resolveOne(kind: string, arg: string, ctx: InterpolationContext, report: (missing: boolean, message: string) => void): string {
  if (arg === '') {
    report(false, `empty \${${kind}:} reference: name the ${kind === 'env' ? 'environment variable' : 'file'}`);
    return '';
  }
  if (kind === 'env') {
    const v = ctx.env[arg];
    if (v === undefined) report(true, `environment variable ${arg} is not set (referenced as \${env:${arg}})`);
    return v ?? '';
  }
  const target = ctx.resolvePath(arg);
  try {
    return ctx.readRef(target).replace(/\r?\n$/, '');
  } catch (e) {
    const reason = e instanceof Error && 'code' in e ? String((e as { code: unknown }).code) : 'unreadable';
    report(true, `cannot read file ${target} (referenced as \${file:${arg}}): ${reason}`);
    return '';
  }
}

/** The YAML core-schema reading of an interpolated plain scalar: numbers and booleans keep their type. */
function typed(value: string): unknown {
  if (!/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)$/.test(value)) return value;
  return parseYaml(value) as unknown;
}

function walk(node: unknown, path: PropertyKey[], visit: (n: Scalar, path: PropertyKey[]) => void): void {
  if (isScalar(node)) visit(node, path);
  else if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      walk(pair.value, [...path, key], visit);
    }
  } else if (isSeq(node)) node.items.forEach((item, i) => walk(item, [...path, i], visit));
}
