/**
 * Just enough of `kubectl` to replay the deploy examples' documented commands on a simulated
 * cluster: `apply -f FILE|DIR` (`-R` to recurse), `create secret generic NAME --from-file=KEY=PATH
 * --from-literal=KEY=VALUE`, `-n NAMESPACE`. Apply as kubectl's apply does for what the examples
 * hold: the fields a file declares replace the live ones (maps merged key by key, lists replaced),
 * a Secret's stringData lands in its data; a kind without a built-in schema needs its CRD
 * (`no matches for kind`), a namespaced object its namespace; each object of a file is applied
 * even when another fails. `create` fails on an object that exists. Any other command is an error,
 * so a documented command this cannot replay fails the test instead of passing unseen.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { modelModule, type K8sObject } from './k8s-schema.js';

const require = createRequire(import.meta.url);
const CLUSTER_SCOPED = new Set(['Namespace', 'PersistentVolume', 'StorageClass', 'ClusterRole', 'ClusterRoleBinding', 'PriorityClass']);
const MANIFEST_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

export type Obj = K8sObject & { metadata: { name: string; namespace?: string } };
type Json = Record<string, unknown>;

export interface DocumentedCommand {
  /** The command as written (continuation lines joined). */
  text: string;
  argv: string[];
  /** Marked `# optional` in the header. */
  optional: boolean;
}

/** The `kubectl …` lines of a file's header comment (`#   kubectl …`, `\` continues a line), in order. */
export function documentedCommands(fileText: string): DocumentedCommand[] {
  const lines = fileText.split('\n');
  const end = lines.findIndex((l) => !l.startsWith('#'));
  const header = lines.slice(0, end < 0 ? lines.length : end);
  const commands: DocumentedCommand[] = [];
  let pending: string | undefined;
  for (const raw of header) {
    const line = raw.replace(/^#\s*/, '');
    const text = pending === undefined ? (/^\s{2,}kubectl\s/.test(raw.slice(1)) ? line : undefined) : `${pending} ${line}`;
    if (text === undefined) continue;
    if (text.endsWith('\\')) {
      pending = text.slice(0, -1).trim();
      continue;
    }
    pending = undefined;
    const [command = '', comment = ''] = text.split(/\s+#\s*/, 2);
    if (/["'`$|]/.test(command)) throw new Error(`cannot replay a quoted or piped command: ${command}`);
    commands.push({ text: command.trim(), argv: command.trim().split(/\s+/), optional: /^optional\b/.test(comment) });
  }
  return commands;
}

/** The Secrets a header's `kubectl create secret generic NAME --from-file=KEY=…` commands make: name → keys. */
export function createdSecrets(fileText: string): Map<string, string[]> {
  const created = new Map<string, string[]>();
  for (const c of documentedCommands(fileText)) {
    const generic = c.argv.indexOf('generic');
    if (c.argv[generic - 2] !== 'create' || c.argv[generic - 1] !== 'secret') continue;
    const keys = c.argv.filter((a) => a.startsWith('--from-')).map((a) => a.replace(/^--from-(file|literal)=/, '').split('=')[0] ?? '');
    created.set(c.argv[generic + 1] ?? '', keys);
  }
  return created;
}

/** The objects of a manifest file, in order (empty documents skipped). */
export function manifestObjects(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as Obj | null;
    })
    .filter((d): d is Obj => d !== null);
}

/** The files `kubectl apply -f PATH` reads: the file itself, or a folder's .json/.yaml/.yml files (recursive with -R). */
export function appliedFiles(path: string, recursive: boolean): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const full = join(path, e.name);
      if (e.isDirectory()) return recursive ? appliedFiles(full, true) : [];
      return MANIFEST_EXTENSIONS.has(extname(e.name)) ? [full] : [];
    });
}

/** Whether a kind is served without a CRD: kubernetes-models (the built-in API) has a model of it. */
export function isBuiltIn(apiVersion: string, kind: string): boolean {
  const module = modelModule(apiVersion, kind);
  if (module.startsWith('@')) return false;
  try {
    require.resolve(module);
    return true;
  } catch {
    return false;
  }
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '');
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function merged(live: unknown, applied: unknown): unknown {
  if (!isMap(live) || !isMap(applied)) return structuredClone(applied);
  const out: Json = { ...live };
  for (const [k, v] of Object.entries(applied))
    Object.defineProperty(out, k, { value: merged(live[k], v), enumerable: true, writable: true });
  return out;
}

/** A Secret as the API server keeps it: stringData folded into base64 data. */
function stored(obj: Obj): Obj {
  if (obj.kind !== 'Secret' || !isMap(obj.stringData)) return obj;
  const { stringData, ...rest } = obj;
  const data = Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(String(v)).toString('base64')]));
  return { ...rest, data: { ...(isMap(rest.data) ? rest.data : {}), ...data } };
}

export class Cluster {
  readonly objects = new Map<string, Obj>();
  /** `group/kind` of the installed CRDs. */
  readonly crds = new Set<string>();

  constructor(
    private readonly cwd: string,
    /** What `--from-file=KEY=PATH` reads: the user's local files. */
    private readonly localFile: (path: string) => string,
  ) {}

  static key(kind: string, apiVersion: string, namespace: string | undefined, name: string): string {
    return `${groupOf(apiVersion)}/${kind}/${CLUSTER_SCOPED.has(kind) ? '' : (namespace ?? 'default')}/${name}`;
  }

  get(kind: string, apiVersion: string, namespace: string | undefined, name: string): Obj | undefined {
    return this.objects.get(Cluster.key(kind, apiVersion, namespace, name));
  }

  /** Runs one command; returns its errors (empty: exit 0). */
  run(argv: readonly string[]): string[] {
    if (argv[0] !== 'kubectl') throw new Error(`not a kubectl command: ${argv.join(' ')}`);
    const flags = { namespace: undefined as string | undefined, files: [] as string[], recursive: false, from: [] as string[] };
    const words: string[] = [];
    for (let i = 1; i < argv.length; i += 1) {
      const a = argv[i] ?? '';
      if (a === '-n' || a === '--namespace') flags.namespace = argv[++i];
      else if (a === '-f' || a === '--filename') flags.files.push(argv[++i] ?? '');
      else if (a === '-R' || a === '--recursive') flags.recursive = true;
      else if (a.startsWith('--from-file=') || a.startsWith('--from-literal=')) flags.from.push(a);
      else if (a.startsWith('-')) throw new Error(`unsupported flag ${a} in: ${argv.join(' ')}`);
      else words.push(a);
    }
    if (words[0] === 'apply' && words.length === 1 && flags.files.length > 0)
      return flags.files.flatMap((f) =>
        appliedFiles(join(this.cwd, f), flags.recursive).flatMap((file) => this.#applyFile(file, flags.namespace)),
      );
    if (words.join(' ').startsWith('create secret generic ') && words.length === 4)
      return this.#createSecret(words[3] ?? '', flags.namespace ?? 'default', flags.from);
    throw new Error(`unsupported command: ${argv.join(' ')}`);
  }

  #applyFile(file: string, namespace: string | undefined): string[] {
    return manifestObjects(file).flatMap((obj) => {
      const error = this.apply({ ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? namespace } });
      return error ? [`${file}: ${error}`] : [];
    });
  }

  /** One object applied; the error kubectl prints for it, if any. */
  apply(obj: Obj): string | undefined {
    const group = groupOf(obj.apiVersion);
    if (!isBuiltIn(obj.apiVersion, obj.kind) && !this.crds.has(`${group}/${obj.kind}`))
      return `no matches for kind "${obj.kind}" in version "${obj.apiVersion}" (ensure CRDs are installed first)`;
    const missingNamespace = this.#missingNamespace(obj.kind, obj.metadata.namespace);
    if (missingNamespace) return missingNamespace;
    const key = Cluster.key(obj.kind, obj.apiVersion, obj.metadata.namespace, obj.metadata.name);
    this.objects.set(key, merged(this.objects.get(key), stored(obj)) as Obj);
    return undefined;
  }

  #missingNamespace(kind: string, namespace: string | undefined): string | undefined {
    if (CLUSTER_SCOPED.has(kind) || (namespace ?? 'default') === 'default') return undefined;
    return this.get('Namespace', 'v1', undefined, namespace ?? '') ? undefined : `namespaces "${namespace}" not found`;
  }

  #createSecret(name: string, namespace: string, from: readonly string[]): string[] {
    if (this.get('Secret', 'v1', namespace, name)) return [`secrets "${name}" already exists`];
    const missing = this.#missingNamespace('Secret', namespace);
    if (missing) return [missing];
    const data: Record<string, string> = {};
    for (const spec of from) {
      const [source = '', rest = ''] = spec.replace(/^--/, '').split(/=(.*)/s, 2);
      const eq = rest.indexOf('=');
      if (eq <= 0) throw new Error(`--${source} needs KEY=VALUE in this replay: ${spec}`);
      const value = source === 'from-file' ? this.localFile(rest.slice(eq + 1)) : rest.slice(eq + 1);
      Object.defineProperty(data, rest.slice(0, eq), { value: Buffer.from(value).toString('base64'), enumerable: true });
    }
    this.objects.set(Cluster.key('Secret', 'v1', namespace, name), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      data,
    });
    return [];
  }
}
