/**
 * Documents one field away from valid ones, for the schema-parity test (issue 54): the shipped
 * examples, what `obsync init` writes and a config with every section, each changed one field at
 * a time — a leaf given values of other sizes, formats and types, a field removed, a field that
 * another document of the same kind has at the same place added (a generic webhook's headers on
 * a slack one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { INIT_CONFIG, INIT_EXAMPLE } from '../../src/cli/commands/init.js';
import { discoverFiles } from '../../src/manifests/discover.js';

export type Doc = unknown;
type Path = (string | number)[];
type Donors = Map<string, Record<string, Doc>[]>;

const CONFIG_WITH_EVERYTHING = `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
defaults: {schedule: "*/5 * * * *", prune: false, concurrency: 4}
notifications:
  - {type: slack, url: "https://hooks.slack.com/services/T/B/X", events: [drift, failed], targets: [prod], maxPerMinute: 20}
  - {type: generic, url: "https://example.com/hook"}
targets:
  - name: prod
    variant: hosted
    baseUrl: https://api.example.com
    organizationId: a0000000-0000-4000-8000-000000000001
    serviceId: b0000000-0000-4000-8000-000000000001
    credentials: {keyId: k, keySecret: s}
  - {name: staging, variant: self-hosted, baseUrl: "http://127.0.0.1:8000", credentials: {apiKey: a}}
`;

/** The valid documents changes start from (one with ${var:…} is valid once the loader resolves it: not one of them). */
export function seeds(examples: string): Doc[] {
  const texts = [...discoverFiles([examples]).files.map((f) => readFileSync(f, 'utf8')), INIT_CONFIG, INIT_EXAMPLE, CONFIG_WITH_EVERYTHING];
  return texts.flatMap((t) => parseAllDocuments(t).map((d) => d.toJS() as Doc)).filter((d) => !JSON.stringify(d).includes('${'));
}

export const EXAMPLES = join(import.meta.dirname, '../../config-examples');

/** Lengths past each limit the schemas have (64 … 16,384), blanks, formats, patterns; then another type. */
const STRINGS: Doc[] = [
  '',
  ' ',
  'A',
  'a'.repeat(70),
  'a'.repeat(300),
  'a'.repeat(2100),
  'a'.repeat(20_000),
  'ftp://x.org/',
  'no url',
  'a\nb',
  '1a',
  '-a',
  '*',
  1,
];
const NUMBERS: Doc[] = [-1, 0, 0.5, 61, 1e6, 1e13, '1'];

function replacements(value: Doc): Doc[] {
  if (typeof value === 'string') return STRINGS;
  if (typeof value === 'number') return NUMBERS;
  if (typeof value === 'boolean') return [!value, 'true'];
  return [];
}

function at(doc: Doc, path: Path): Doc {
  return path.reduce<Doc>((node, key) => (node as Record<string | number, Doc> | undefined)?.[key], doc);
}

/** Every node of a document with its path (arrays: their first two items). */
function* nodes(value: Doc, path: Path = []): Generator<[Path, Doc]> {
  yield [path, value];
  if (Array.isArray(value)) for (const [i, item] of value.slice(0, 2).entries()) yield* nodes(item, [...path, i]);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* nodes(v, [...path, k]);
}

/** `spec.tiles.*.key`: a path with its array indexes as `*`. */
export const pathKey = (path: readonly (string | number)[]) => path.map((p) => (typeof p === 'number' ? '*' : p)).join('.');

function withValue(doc: Doc, path: Path, value: Doc): Doc {
  const out = structuredClone(doc);
  const parent = at(out, path.slice(0, -1)) as Record<string | number, Doc>;
  const key = path[path.length - 1] ?? '';
  if (value === undefined) delete parent[key];
  else parent[key] = value;
  return out;
}

const kindOf = (doc: Doc) => String((doc as { kind?: unknown }).kind);

/** The objects of each kind's documents, by kind and path: what may be added to another document of the kind. */
function donorsOf(docs: readonly Doc[]): Donors {
  const donors: Donors = new Map();
  for (const doc of docs)
    for (const [path, value] of nodes(doc))
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const key = `${kindOf(doc)}:${pathKey(path)}`;
        donors.set(key, [...(donors.get(key) ?? []), value as Record<string, Doc>]);
      }
  return donors;
}

/** Every document one change away from one of `docs`, with the kind of the document it came from. */
export function* oneFieldAway(docs: readonly Doc[]): Generator<{ kind: string; doc: Doc }> {
  const donors = donorsOf(docs);
  for (const doc of docs) {
    const kind = kindOf(doc);
    for (const [path, value] of nodes(doc)) {
      for (const other of replacements(value)) yield { kind, doc: withValue(doc, path, other) };
      if (path.length > 0 && !Array.isArray(at(doc, path.slice(0, -1)))) yield { kind, doc: withValue(doc, path, undefined) };
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const donor of donors.get(`${kind}:${pathKey(path)}`) ?? [])
        for (const [k, v] of Object.entries(donor)) if (!(k in value)) yield { kind, doc: withValue(doc, [...path, k], v) };
    }
  }
}
