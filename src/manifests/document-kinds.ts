/** What a document's kind tells the loader: its kind, its spec's fields, and which of them are sensitive. */
import type { Document } from 'yaml';
import { ALERT_TEST_KIND } from '../alert-tests/schema.js';
import type { Kind } from '../core/plan.js';
import { registerSecret } from '../core/scrub.js';
import { specSchemas } from '../kinds/manifest.js';
import { KINDS } from '../kinds/registry.js';
import type { SensitiveValue } from './carried.js';
import { fieldLookup, sensitivePathsOf, valuesAt } from './fields.js';

/** Per kind, not per document: a kept load holds one of each for all its documents. */
const fieldsByKind = new Map<Kind, ReturnType<typeof fieldLookup>>();
const sensitiveByKind = new Map<Kind, (path: readonly PropertyKey[]) => boolean>();
export const notSensitive = () => false;

export function specFields(kind: Kind): ReturnType<typeof fieldLookup> {
  let field = fieldsByKind.get(kind);
  if (!field) fieldsByKind.set(kind, (field = fieldLookup(specSchemas[kind], ['spec'])));
  return field;
}

export function sensitiveIn(kind: Kind): (path: readonly PropertyKey[]) => boolean {
  let sensitive = sensitiveByKind.get(kind);
  if (!sensitive) {
    const field = specFields(kind);
    sensitiveByKind.set(kind, (sensitive = (path) => field(path).sensitive));
  }
  return sensitive;
}

const isKind = (k: unknown): k is Kind => typeof k === 'string' && (KINDS as readonly string[]).includes(k);

export function kindOf(doc: Document): Kind | 'Config' | 'Policy' | typeof ALERT_TEST_KIND | undefined {
  const kind = doc.get('kind');
  return kind === 'Config' || kind === 'Policy' || kind === ALERT_TEST_KIND || isKind(kind) ? kind : undefined;
}

/** Every value at a sensitive path of a document's spec, told to the scrubber and returned for the credential rule. */
export function registerSensitiveValues(kind: Kind, value: unknown, file: string): SensitiveValue[] {
  const spec = typeof value === 'object' && value !== null ? (value as { spec?: unknown }).spec : undefined;
  const out: SensitiveValue[] = [];
  for (const pattern of sensitivePathsOf(specSchemas[kind]))
    for (const secret of valuesAt(spec, [pattern])) {
      registerSecret(secret);
      out.push({ value: secret, origin: `the value of spec.${pattern.join('.')} in ${file}` });
    }
  return out;
}
