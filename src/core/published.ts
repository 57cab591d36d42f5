/**
 * Where obsync's JSON Schemas are published: as raw files of the repository's main branch, so a
 * schema's `$id` (and a SchemaStore entry) resolves to the JSON itself, not to a web page about it.
 * The repository is package.json's `repository` (a test keeps them equal).
 */
export const PUBLISHED_BASE_URL = 'https://raw.githubusercontent.com/obsync/obsync/main';

/** The editor schema of manifests and obsync.yaml (`obsync schema`), committed as config-examples/obsync.schema.json. */
export const EDITOR_SCHEMA_URL = `${PUBLISHED_BASE_URL}/config-examples/obsync.schema.json`;

/** The schemas of the JSON outputs, committed in docs/schema/. */
export const OUTPUT_SCHEMA_BASE_URL = `${PUBLISHED_BASE_URL}/docs/schema`;

/** Where one of them is published (its `$id`; a CloudEvent's `dataschema`). */
export function outputSchemaId(file: string): string {
  return `${OUTPUT_SCHEMA_BASE_URL}/${file}`;
}
