/**
 * Kubernetes manifests checked against the official schemas, strictly, from npm packages only:
 * kubernetes-models (generated from the Kubernetes OpenAPI document) and its prometheus-operator
 * models (generated from the operator's CRDs).
 *
 * Two checks per object: the packages' JSON-schema validators (types, required fields, formats,
 * enums), and — because those schemas allow unknown fields, as the API server's do when not told
 * otherwise — the TypeScript compiler, which rejects every field the official types do not declare
 * (`const doc: IDeployment = {...}`: an excess-property error at any depth).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  [key: string]: unknown;
}

const require = createRequire(import.meta.url);

/** The module of a kind's model: core `v1` → kubernetes-models/v1/Kind, `apps/v1` → kubernetes-models/apps/v1/Kind, CRDs by group. */
export function modelModule(apiVersion: string, kind: string): string {
  if (apiVersion === 'v1') return `kubernetes-models/v1/${kind}`;
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/** The packages' schema validation; returns the errors (empty when valid). */
export function schemaErrors(doc: K8sObject): string[] {
  let Model: new (data: unknown) => { validate(): void };
  try {
    Model = (require(modelModule(doc.apiVersion, doc.kind)) as Record<string, new (data: unknown) => { validate(): void }>)[
      doc.kind
    ] as typeof Model;
  } catch {
    return [`no schema for ${doc.apiVersion} ${doc.kind}`];
  }
  try {
    new Model(doc).validate();
    return [];
  } catch (err) {
    return [err instanceof Error ? err.message : String(err)];
  }
}

/** Fields the official types do not declare, wrong types, missing required fields: one message per problem, naming the document. */
export function typeErrors(docs: readonly K8sObject[], describe: (index: number) => string): string[] {
  const file = join(import.meta.dirname, '__k8s_manifests__.ts');
  const lines = docs.map(
    (doc, i) =>
      `import type { I${doc.kind} as T${i} } from ${JSON.stringify(modelModule(doc.apiVersion, doc.kind))};\nexport const doc${i}: T${i} ` +
      `= ${JSON.stringify(doc, null, 1)};\n`,
  );
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    getSourceFile: (name, version, ...rest) =>
      name === file ? ts.createSourceFile(name, source, version) : base.getSourceFile(name, version, ...rest),
    fileExists: (name) => name === file || base.fileExists(name),
    readFile: (name) => (name === file ? source : base.readFile(name)),
  };
  const program = ts.createProgram([file], options, host);
  const starts = lines.map((_, i) => lines.slice(0, i).join('\n').length + (i > 0 ? 1 : 0));
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const index = d.start === undefined ? -1 : starts.findLastIndex((s) => s <= (d.start ?? 0));
    return `${index >= 0 ? describe(index) : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
