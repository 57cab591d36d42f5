import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The official SARIF 2.1.0 schema (OASIS sarif-spec, sarif-2.1/schema/sarif-schema-2.1.0.json),
 * vendored unchanged. It is draft-04; Ajv 8 reads it as draft-07 once its root `id` is `$id` (no
 * other draft-04 feature, such as a boolean exclusiveMinimum, is used in it).
 */
export function sarifValidator() {
  const {
    id,
    $schema: _draft04,
    ...schema
  } = JSON.parse(readFileSync(resolve(import.meta.dirname, 'schemas/sarif-schema-2.1.0.json'), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile({ ...schema, $id: String(id) });
}
