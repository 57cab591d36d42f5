/**
 * Reference pages in Markdown generated from the editor schema (`obsync schema --docs DIR`,
 * `npm run docs`): one page per kind and one for obsync.yaml, each listing the definitions the
 * kind reaches with every field, its type, constraints and description. A test regenerates them
 * in memory and compares with docs/reference, so the pages never drift from the schema.
 */
import type { Kind } from '../core/plan.js';
import { folderOf, KINDS, managedDefinition } from '../kinds/registry.js';
import { SENSITIVE_KEYWORD } from '../kinds/sensitive.js';
import { cell, text } from '../reference/markdown.js';

type Json = Record<string, unknown>;

export interface ReferencePage {
  file: string;
  title: string;
  root: string;
  intro: string;
}

/** One page per manifest kind (from the registry), the documents read offline (policy, alert tests), then obsync.yaml. */
export const REFERENCE_PAGES: readonly ReferencePage[] = [
  ...KINDS.map((kind) => kindPage(kind)),
  {
    file: 'policy.md',
    title: 'Policy',
    root: 'PolicyManifest',
    intro: 'A policy document (`kind: Policy`): rules `obsync lint` checks before merge.',
  },
  {
    file: 'alert-test.md',
    title: 'AlertTest',
    root: 'AlertTestManifest',
    intro: 'An alert test document (`kind: AlertTest`), run by `obsync test`.',
  },
  { file: 'config.md', title: 'obsync.yaml', root: 'Config', intro: 'The configuration file, `obsync.yaml` (`kind: Config`).' },
];

function kindPage(kind: Kind): ReferencePage {
  const def = managedDefinition(kind);
  const noun = def?.noun ?? kind.toLowerCase();
  const variants = Object.keys(def?.routes ?? {});
  const only = variants.length === 1 ? `, ${variants[0] ?? ''} variant` : '';
  return {
    file: `${folderOf(kind)}.md`,
    title: kind,
    root: kind,
    intro: `${/^([aeiou]|[FHLMNRSX][A-Z])/.test(noun) ? 'An' : 'A'} ${noun} manifest (\`kind: ${kind}\`${only}).`,
  };
}

const HEADER = '<!-- Generated from the JSON Schema by `npm run docs` (obsync schema --docs docs/reference). Do not edit. -->';

function refName(node: Json): string | undefined {
  const ref = node.$ref ?? (Array.isArray(node.allOf) && node.allOf.length === 1 ? (node.allOf[0] as Json).$ref : undefined);
  return typeof ref === 'string' ? ref.replace('#/definitions/', '') : undefined;
}

const anchor = (name: string) => name.toLowerCase();
const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** The definitions a page reaches from its root, in the order they are met (breadth first). */
function reachable(defs: Record<string, Json>, root: string): string[] {
  const order: string[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const name = queue.shift() ?? '';
    if (order.includes(name) || !defs[name]) continue;
    order.push(name);
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      const ref = (node as Json).$ref;
      if (typeof ref === 'string') queue.push(ref.replace('#/definitions/', ''));
      Object.values(node).forEach(visit);
    };
    visit(defs[name]);
  }
  return order;
}

function typeOf(node: Json): string {
  const ref = refName(node);
  if (ref) return `[${ref}](#${anchor(ref)})`;
  if (node.const !== undefined) return code(node.const);
  if (Array.isArray(node.enum)) return `one of ${node.enum.map(code).join(', ')}`;
  if (Array.isArray(node.anyOf)) return (node.anyOf as Json[]).map(typeOf).join(' or ');
  const type = Array.isArray(node.type) ? (node.type as string[]).join(' or ') : node.type;
  if (type === 'array') {
    if (Array.isArray(node.items)) return `[${(node.items as Json[]).map(typeOf).join(', ')}]`;
    return `list of ${node.items ? typeOf(node.items as Json) : 'anything'}`;
  }
  if (type === 'object' && typeof node.additionalProperties === 'object')
    return `map of string to ${typeOf(node.additionalProperties as Json)}`;
  return typeof type === 'string' ? type : 'anything';
}

function constraints(node: Json): string[] {
  // A field that also takes a ${...} reference: the constraints are those of its own type.
  const own =
    Array.isArray(node.anyOf) && (node.anyOf as Json[]).some((alt) => refName(alt) === 'Interpolation')
      ? (node.anyOf as Json[]).find((alt) => refName(alt) === undefined)
      : undefined;
  if (own)
    return [
      ...constraints(own),
      ...(node[SENSITIVE_KEYWORD] === true ? ['**sensitive**'] : []),
      ...(node.default !== undefined ? [`default ${code(node.default)}`] : []),
    ];
  const out: string[] = [];
  const say = (key: string, text: (v: unknown) => string) => {
    if (node[key] !== undefined) out.push(text(node[key]));
  };
  say('minLength', (v) => (v === 1 ? 'not empty' : `at least ${String(v)} characters`));
  say('maxLength', (v) => `at most ${String(v)} characters`);
  say('minimum', (v) => `≥ ${String(v)}`);
  say('exclusiveMinimum', (v) => `> ${String(v)}`);
  say('maximum', (v) => `≤ ${String(v)}`);
  say('minItems', (v) => `at least ${String(v)} items`);
  say('maxItems', (v) => `at most ${String(v)} items`);
  say('pattern', (v) => `matches ${code(v)}`);
  say('format', (v) => `format ${String(v)}`);
  say('default', (v) => `default ${code(v)}`);
  if (node[SENSITIVE_KEYWORD] === true) out.push('**sensitive**');
  if (node.type === 'array' && typeof node.items === 'object' && !Array.isArray(node.items))
    out.push(
      ...constraints(node.items as Json)
        .filter((c) => c.startsWith('at') && c.includes('characters'))
        .map((c) => `each ${c}`),
    );
  return out;
}

/** Rows of the fields of an object, with the fields of inline (unnamed) objects under a dotted name. */
function fieldRows(node: Json, defs: Record<string, Json>, prefix = ''): string[] {
  const props = (node.properties ?? {}) as Record<string, Json>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  return Object.entries(props).flatMap(([name, prop]) => {
    const ref = refName(prop);
    const description =
      typeof prop.description === 'string' ? prop.description : ref ? ((defs[ref]?.description as string | undefined) ?? '') : '';
    const notes = constraints(prop);
    const row =
      `| \`${prefix}${name}\` | ${cell(typeOf(prop))} | ${required.has(name) ? 'yes' : ''} | ` +
      `${cell([description, notes.join(', ')].filter(Boolean).join(' — '))} |`;
    const items = prop.type === 'array' && typeof prop.items === 'object' && !Array.isArray(prop.items) ? (prop.items as Json) : undefined;
    const inline = items ?? prop;
    const nested =
      refName(inline) === undefined && inline.properties ? fieldRows(inline, defs, `${prefix}${name}${items ? '[]' : ''}.`) : [];
    return [row, ...nested];
  });
}

function fieldTable(node: Json, defs: Record<string, Json>): string[] {
  const rows = fieldRows(node, defs);
  return rows.length === 0 ? [] : ['| field | type | required | description |', '| --- | --- | --- | --- |', ...rows];
}

/** An if/then chain made from a discriminated union: which value of the discriminator selects what. */
function branches(node: Json, defs: Record<string, Json>): string[] {
  const rules = (Array.isArray(node.allOf) ? (node.allOf as Json[]) : []).filter(
    (r) =>
      r.if !== undefined &&
      r.then !== undefined &&
      (refName(r.then as Json) !== undefined || typeof (r.then as Json).description === 'string'),
  );
  const out: string[] = [];
  for (const rule of rules) {
    const test = ((rule.if as Json).properties ?? {}) as Record<string, Json>;
    const [key, value] = Object.entries(test)[0] ?? [];
    if (!key || !value || !Array.isArray(value.enum)) continue;
    const when = `\`${key}\`: ${value.enum.map(code).join(', ')}${(rule.if as Json).required ? '' : ' (or absent)'}`;
    const then = rule.then as Json;
    const ref = refName(then);
    if (ref) out.push(`- ${when} → [${ref}](#${anchor(ref)})`);
    else
      out.push(
        '',
        `When ${when}${typeof then.description === 'string' ? `: ${text(then.description)}` : ''}`,
        '',
        ...fieldTable(then, defs),
      );
  }
  return out;
}

function section(name: string, def: Json, defs: Record<string, Json>): string[] {
  const lines = [`## ${name}`, ''];
  if (typeof def.description === 'string') lines.push(text(def.description), '');
  if (!def.properties && !Array.isArray(def.allOf)) lines.push(`Type: ${typeOf({ ...def, description: undefined })}.`, '');
  for (const alt of Array.isArray(def.anyOf) ? (def.anyOf as Json[]) : []) if (alt.properties) lines.push(...fieldTable(alt, defs), '');
  lines.push(...fieldTable(def, defs), '');
  const chain = branches(def, defs);
  if (chain.length > 0) lines.push('Selected by the discriminator:', '', ...chain, '');
  return lines;
}

/** The reference pages, by file name, from `obsync schema`'s output. */
export function referencePages(schema: Json): Map<string, string> {
  const defs = (schema.definitions ?? {}) as Record<string, Json>;
  const pages = new Map<string, string>();
  for (const page of REFERENCE_PAGES) {
    const names = reachable(defs, page.root);
    const lines = [
      HEADER,
      '',
      `# ${page.title}`,
      '',
      page.intro,
      '',
      'Contents: ' + names.map((n) => `[${n}](#${anchor(n)})`).join(' · '),
      '',
    ];
    for (const name of names) lines.push(...section(name, defs[name] ?? {}, defs));
    pages.set(
      page.file,
      `${lines
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trimEnd()}\n`,
    );
  }
  const index = [
    HEADER,
    '',
    '# obsync reference',
    '',
    'Every field of the documents obsync reads, generated from `obsync schema`.',
    '',
    ...REFERENCE_PAGES.map((p) => `- [${p.title}](${p.file}): ${p.intro}`),
    '',
  ];
  pages.set('README.md', index.join('\n'));
  return pages;
}
