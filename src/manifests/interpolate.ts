/**
 * `${env:NAME}`, `${file:PATH}` and `${var:NAME}` in string values (DESIGN §2-3), resolved on the
 * YAML tree so a problem is reported at its own line. `${var:}` takes a value from the selected
 * target's `vars` in obsync.yaml, so one manifest tree is interpolated once per target. `$${` is a
 * literal `${` (export writes every `${` of the service's data so). File contents lose one
 * trailing newline. The kinds of reference are a table (RESOLVERS): a new kind is one entry.
 * Data is never code: a substituted value is never scanned again (one left-to-right pass per
 * scalar, and a scalar is interpolated once), so `${env:X}` inside a variable or a file stays text.
 *
 * Trust rules (DESIGN §4):
 * - A credential in a non-sensitive field is refused on the resolved values, after interpolation,
 *   whatever carried it (./carried.ts): not here, by the name of a variable.
 * - `${file:}` reads only regular files of at most 1 MiB below the allowed directories (the
 *   config file's tree unless allowed otherwise), checked on the real path after symlinks.
 * - The type of a value comes from the template and the field, never from the substituted text:
 *   a plain scalar that is exactly one reference becomes a number or boolean only when its field
 *   takes that and not a string (`port: ${env:PG_PORT}`), so a numeric-looking secret stays a string.
 */
import { dirname, isAbsolute, join } from 'node:path';
import { isMap, isPair, isScalar, isSeq, parse as parseYaml, Scalar, type Document, type LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { confine, FileRefusal, readRegularFile, type FileScope } from './files.js';
import { closest } from './suggest.js';

export interface FieldInfo {
  /** The schema marks the field sensitive (credentials, passwords, keys). */
  sensitive: boolean;
  /** Whether the field takes this value as it is; decides the type of a whole-reference scalar. */
  accepts?: (value: unknown) => boolean;
}

export interface InterpolationContext {
  file: string;
  env: Readonly<Record<string, string | undefined>>;
  allowMissingEnv: boolean;
  /** Where `${file:}` may read; relative paths are resolved against the document's directory. */
  files: FileScope;
  /** Reads a confined `${file:}` target (default: a regular file of at most 1 MiB). */
  readRef?: (path: string) => string;
  /** What the schema says about the field at a document path (default: a non-sensitive string). */
  field?: (path: readonly PropertyKey[]) => FieldInfo;
  /** The target whose `vars` answer `${var:NAME}` (none: every `${var:}` is an error). */
  vars?: TargetVars;
  /** Only scalars at these paths are interpolated (default: all); the others are left as written. */
  only?: (path: readonly PropertyKey[]) => boolean;
  /** Told the path of each value left unset (an unset variable, an unreadable file). */
  onMissing?: (path: readonly PropertyKey[]) => void;
}

/** `targets[].vars` of one target, already interpolated. */
export interface TargetVars {
  target: string;
  values: Readonly<Record<string, string>>;
}

type Outcome = { value: string } | { missing: string } | { refused: string; code: string };

interface RefContext {
  ctx: InterpolationContext;
  field: FieldInfo;
  /** Where the reference is, for messages (`spec.name`). */
  where: string;
}

type Resolver = (arg: string, ref: RefContext) => Outcome;

const RESOLVERS: Record<string, Resolver> = {
  env: resolveEnv,
  file: resolveFile,
  var: resolveVar,
};

const KINDS = Object.keys(RESOLVERS).join('|');
const REF = new RegExp(String.raw`\$\$\{|\$\{(${KINDS}):([^}]*)\}`, 'g');
const WHOLE_REF = new RegExp(String.raw`^\$\{(${KINDS}):[^}]*\}$`);
const PLAIN_STRING: FieldInfo = { sensitive: false };

/**
 * Scalars already interpolated. What a reference brought in (a variable's value, a file's text, a
 * var) is data: a second pass over the same document (obsync.yaml is interpolated in parts) must
 * not read a `${...}` inside it as a reference, nor turn a `$${` back into `${` twice.
 */
const resolved = new WeakSet<Scalar>();

/** Whether a string as written in a manifest holds a reference (`${env:…}`, `${file:…}`, `${var:…}`), not only escaped `$${`. */
export function holdsReference(text: string): boolean {
  for (const m of text.matchAll(REF)) if (m[0] !== '$${') return true;
  return false;
}

/** A string without references as interpolation reads it: each `$${` a literal `${`. */
export function literalText(text: string): string {
  return text.replaceAll('$${', () => '${');
}

/** Whether interpolation would rewrite anything in the document (a value holding `${`); one that would not can be shared as it is. */
export function interpolates(doc: Document): boolean {
  let found = false;
  walk(doc.contents, [], (node) => {
    if (!found && typeof node.value === 'string' && node.value.includes('${')) found = true;
  });
  return found;
}

export function interpolateDocument(doc: Document, lc: LineCounter, ctx: InterpolationContext): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  walk(doc.contents, [], (node, path) => {
    if (typeof node.value !== 'string' || !node.value.includes('${') || resolved.has(node)) return;
    if (ctx.only && !ctx.only(path)) return;
    resolved.add(node);
    const original = node.value;
    const pos = lc.linePos(node.range?.[0] ?? 0);
    const where = formatPath(path);
    const at = { file: ctx.file, line: pos.line, col: pos.col, path: where };
    const field = ctx.field?.(path) ?? PLAIN_STRING;
    const value = original.replace(REF, (match, kind?: string, arg?: string) => {
      if (match === '$${') return '${';
      const name = kind ?? '';
      const outcome = resolveOne(name, (arg ?? '').trim(), { ctx, field, where });
      if ('value' in outcome) return outcome.value;
      if ('missing' in outcome) {
        ctx.onMissing?.(path);
        diagnostics.push({
          severity: ctx.allowMissingEnv ? 'warning' : 'error',
          code: 'missing-reference',
          message: outcome.missing,
          ...at,
        });
      } else diagnostics.push({ severity: 'error', code: outcome.code, message: outcome.refused, ...at });
      return '';
    });
    node.value = node.type === Scalar.PLAIN && WHOLE_REF.test(original) ? typed(value, field) : value;
  });
  return diagnostics;
}

function resolveOne(kind: string, arg: string, ref: RefContext): Outcome {
  if (arg === '') return { refused: `empty \${${kind}:} reference: name the ${NOUN[kind] ?? kind}`, code: 'bad-reference' };
  const resolver = RESOLVERS[kind];
  if (!resolver) return { refused: `unknown reference kind '${kind}'`, code: 'bad-reference' };
  return resolver(arg, ref);
}

const NOUN: Record<string, string> = { env: 'environment variable', file: 'file', var: 'var' };

function resolveEnv(name: string, { ctx }: RefContext): Outcome {
  // Own names only: `${env:constructor}` is not set, whatever the object inherits.
  const value = Object.hasOwn(ctx.env, name) ? ctx.env[name] : undefined;
  if (value !== undefined) return { value };
  return {
    missing:
      `environment variable ${name} is not set (referenced as \${env:${name}}): set it, or put it in .env or a file given ` +
      `with --dotenv`,
  };
}

function resolveVar(name: string, { ctx }: RefContext): Outcome {
  const reference = `\${var:${name}}`;
  const vars = ctx.vars;
  if (!vars)
    return {
      refused:
        `${reference} has no value here: vars are declared per target in obsync.yaml (targets[].vars) and used in the ` +
        `manifests of that target`,
      code: 'missing-var',
    };
  const value = Object.hasOwn(vars.values, name) ? vars.values[name] : undefined;
  if (value !== undefined) return { value };
  const hint = closest(name, Object.keys(vars.values));
  const known = hint ? ` — did you mean '${hint}'?` : '';
  return {
    refused: `${reference}: target '${vars.target}' has no var '${name}'${known}; declare it under that target's vars in obsync.yaml`,
    code: 'missing-var',
  };
}

function resolveFile(arg: string, { ctx }: RefContext): Outcome {
  const reference = `\${file:${arg}}`;
  const target = isAbsolute(arg) ? arg : join(dirname(ctx.file), arg);
  let real: string;
  try {
    real = confine(target, ctx.files);
  } catch (e) {
    if (e instanceof FileRefusal && e.code === 'state')
      return { refused: `${reference}: ${e.message}, which \${file:} never reads, even with allowFileOutside`, code: 'file-outside' };
    if (e instanceof FileRefusal) {
      return {
        refused:
          `${reference}: ${e.message}; \${file:} reads only files below the directory of obsync.yaml — allow more with ` +
          `allowFileOutside in obsync.yaml or --allow-file-outside`,
        code: 'file-outside',
      };
    }
    return { missing: `cannot read file ${target} (referenced as ${reference}): ${errorCode(e)}` };
  }
  try {
    return { value: (ctx.readRef ?? readRegularFile)(real).replace(/\r?\n$/, '') };
  } catch (e) {
    if (e instanceof FileRefusal)
      return { refused: `${reference}: ${e.message}; \${file:} reads only regular files of at most 1 MiB`, code: 'bad-reference' };
    return { missing: `cannot read file ${target} (referenced as ${reference}): ${errorCode(e)}` };
  }
}

function errorCode(e: unknown): string {
  return e instanceof Error && 'code' in e ? String((e as { code: unknown }).code) : 'unreadable';
}

/** A whole-reference plain scalar: a number or boolean when the field takes that and not the string. */
function typed(value: string, field: FieldInfo): unknown {
  if (!field.accepts || !/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)$/.test(value)) return value;
  const parsed = parseYaml(value) as unknown;
  return field.accepts(value) || !field.accepts(parsed) ? value : parsed;
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
