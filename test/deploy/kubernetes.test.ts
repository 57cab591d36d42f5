/**
 * deploy/kubernetes/single works as shipped, as far as it can be checked without a cluster: every
 * object is valid against the official schemas (strict on unknown fields); every container and
 * init container meets Pod Security "restricted"; obsync's command line and environment are ones
 * the CLI accepts; obsync reads its manifests from git-sync's checkout, its config from the
 * ConfigMap (valid for obsync's own loader), its credentials from the Secret the header's command
 * creates, and keeps its state on the claim; the Service and the optional ServiceMonitor reach
 * /metrics. Applying it as documented, twice, is ./kubernetes-apply.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseObsyncArgs } from './cli-args.js';
import { envPairs, execForm, last, parseDockerfile, type Stage } from './dockerfile.js';
import { envVarsObsyncReads } from './env-vars.js';
import { schemaErrors, typeErrors, type K8sObject } from './k8s-schema.js';
import { createdSecrets } from './kubectl-sim.js';

const REPO = join(import.meta.dirname, '../..');
const DIR = join(REPO, 'deploy/kubernetes');
/** What the header says to `kubectl apply -f`; the Secret and the ServiceMonitor are apart. */
const FILE = join(DIR, 'single/obsync.yaml');
const MONITOR_FILE = join(DIR, 'prometheus-operator/servicemonitor.yaml');

interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: Mount[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
  procMount?: string;
  windowsOptions?: { hostProcess?: boolean };
}
interface PodSpec {
  securityContext?: SecurityContext & { sysctls?: unknown[] };
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  initContainers?: Container[];
  containers: Container[];
  volumes?: ({ name: string } & Record<string, unknown>)[];
}

type Doc = K8sObject & { metadata: { name: string; namespace?: string; labels?: Record<string, string> } };
function documents(file: string): Doc[] {
  const parsed = parseAllDocuments(readFileSync(file, 'utf8'));
  return (Array.isArray(parsed) ? parsed : []).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS() as Doc;
  });
}
const applied = documents(FILE);
const monitorDocs = documents(MONITOR_FILE);
/** Every object of the example, wherever it is written. */
const docs = [...applied, ...monitorDocs];
const one = <T>(kind: string): T & Doc => {
  const found = docs.filter((d) => d.kind === kind);
  if (found.length !== 1) throw new Error(`deploy/kubernetes: expected one ${kind}, found ${found.length}`);
  return found[0] as T & Doc;
};
const header = readFileSync(FILE, 'utf8').split('\napiVersion:')[0] ?? '';

const deployment = one<{
  spec: { replicas: number; strategy: { type: string }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}>('Deployment');
const pod = deployment.spec.template.spec;
const allContainers = [...(pod.initContainers ?? []), ...pod.containers];
const obsync = pod.containers.find((c) => c.name === 'obsync') as Container;
const configMap = one<{ data: Record<string, string> }>('ConfigMap');
const dockerImage = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8')).at(-1) as Stage;
const imageEnv = Object.fromEntries(dockerImage.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => envPairs(i.args)));

const mountOf = (c: Container, path: string): Mount | undefined =>
  (c.volumeMounts ?? [])
    .filter((m) => !posix.relative(m.mountPath, path).startsWith('..'))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
const volume = (name: string) => pod.volumes?.find((v) => v.name === name);
const envOf = (c: Container, name: string) => c.env?.find((e) => e.name === name)?.value;
/** A flag's value, `--name value` or `--name=value`; the last one wins, as in the parsers of both programs. */
const flag = (args: readonly string[], name: string) => {
  let value: string | undefined;
  args.forEach((a, i) => {
    if (a === name) value = args[i + 1];
    else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
  });
  return value;
};

describe('deploy/kubernetes/single/obsync.yaml', () => {
  it('is valid against the official Kubernetes and prometheus-operator schemas', () => {
    expect(applied.map((d) => d.kind)).toEqual(expect.arrayContaining(['Deployment', 'Service', 'PersistentVolumeClaim', 'ConfigMap']));
    expect(docs.flatMap((d) => schemaErrors(d).map((e) => `${d.kind}/${d.metadata.name}: ${e}`))).toEqual([]);
  });

  it('declares no field the official types do not know (typos are errors)', () => {
    expect(typeErrors(docs, (i) => `${docs[i]?.kind}/${docs[i]?.metadata.name}`)).toEqual([]);
  });

  it('keeps the ServiceMonitor apart and optional: the applied file needs no CRD of the Prometheus Operator', () => {
    expect(applied.filter((d) => !['v1', 'apps/v1'].includes(d.apiVersion)).map((d) => d.kind)).toEqual([]);
    expect(monitorDocs.map((d) => d.kind)).toEqual(['ServiceMonitor']);
    expect(header).toMatch(/kubectl apply -f deploy\/kubernetes\/prometheus-operator\/\s+# optional/);
  });

  // https://kubernetes.io/docs/concepts/security/pod-security-standards/ (baseline and restricted)
  describe('Pod Security "restricted"', () => {
    it('pod level: no host namespaces, only allowed volume types, no sysctls', () => {
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.hostPID ?? false).toBe(false);
      expect(pod.hostIPC ?? false).toBe(false);
      expect(pod.securityContext?.sysctls ?? []).toEqual([]);
      const allowed = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
      for (const v of pod.volumes ?? [])
        expect(
          Object.keys(v).filter((k) => k !== 'name'),
          `volume ${v.name}`,
        ).toEqual([expect.toBeOneOf(allowed)]);
    });

    for (const c of allContainers) {
      describe(`container ${c.name}`, () => {
        const sc = c.securityContext ?? {};
        const podSc = pod.securityContext ?? {};
        it('runs as non-root, never as uid 0', () => {
          expect(sc.runAsNonRoot ?? podSc.runAsNonRoot).toBe(true);
          expect(sc.runAsUser ?? podSc.runAsUser).not.toBe(0);
        });
        it('has no privilege escalation, no privileged mode, every capability dropped', () => {
          expect(sc.allowPrivilegeEscalation).toBe(false);
          expect(sc.privileged ?? false).toBe(false);
          expect(sc.capabilities?.drop).toContain('ALL');
          expect((sc.capabilities?.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE')).toEqual([]);
          expect(sc.procMount ?? 'Default').toBe('Default');
          expect(sc.windowsOptions?.hostProcess ?? false).toBe(false);
        });
        it('uses the RuntimeDefault (or a Localhost) seccomp profile', () => {
          expect(['RuntimeDefault', 'Localhost']).toContain((sc.seccompProfile ?? podSc.seccompProfile)?.type);
        });
        it('has a read-only root file system and resources requested and limited', () => {
          expect(sc.readOnlyRootFilesystem).toBe(true);
          expect(c.resources?.requests?.cpu).toBeDefined();
          expect(c.resources?.requests?.memory).toBeDefined();
          expect(c.resources?.limits?.memory).toBeDefined();
        });
        it('names an image by a fixed tag, never latest', () => {
          expect(c.image).toMatch(/:[\w.-]+$/);
          expect(c.image).not.toMatch(/:latest$/);
        });
      });
    }
  });

  describe('obsync container', () => {
    const entrypoint = execForm(last(dockerImage, 'ENTRYPOINT')?.args ?? '') ?? [];
    const argv = [...entrypoint.slice(2), ...(obsync.args ?? [])];
    const configPath = flag(argv, '--config') ?? '';
    const configMount = mountOf(obsync, configPath);
    const configText = configMap.data[posix.relative(configMount?.mountPath ?? '/', configPath)] ?? '';

    it('starts `obsync run` with flags the CLI accepts (the image entrypoint plus args)', async () => {
      expect((await parseObsyncArgs(argv)).command).toBe('run');
    });

    it('reads a config from the ConfigMap that obsync loads without errors', () => {
      expect(
        (volume(configMount?.name ?? '')?.configMap as { name?: string } | undefined)?.name,
        `${configPath} comes from the ConfigMap`,
      ).toBe(configMap.metadata.name);
      expect(configText).not.toBe('');
      const dir = mkdtempSync(join(tmpdir(), 'obsync-k8s-'));
      try {
        writeFileSync(join(dir, 'obsync.yaml'), configText);
        const loaded = loadConfig(join(dir, 'obsync.yaml'), {});
        expect(loaded.diagnostics).toEqual([]);
        expect(loaded.config?.state?.backend).toBe('file');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reads its manifests from the checkout git-sync keeps current (a volume both mount)', () => {
      const manifests = (loadedManifests(configText) ?? []).map((p) => posix.resolve(posix.dirname(configPath), p));
      expect(manifests.length).toBeGreaterThan(0);
      const syncers = allContainers.filter((c) => c.image.includes('git-sync'));
      expect(pod.initContainers?.some((c) => c.image.includes('git-sync') && c.args?.includes('--one-time'))).toBe(true);
      expect(pod.containers.some((c) => c.image.includes('git-sync') && !c.args?.includes('--one-time'))).toBe(true);
      for (const syncer of syncers) {
        const root = flag(syncer.args ?? [], '--root') ?? '';
        const link = posix.resolve(root, flag(syncer.args ?? [], '--link') ?? '');
        const theirs = mountOf(syncer, root);
        for (const path of manifests) {
          expect(path.startsWith(`${link}/`) || path === link, `${path} is inside ${syncer.name}'s checkout ${link}`).toBe(true);
          const ours = mountOf(obsync, path);
          expect(ours?.name, `obsync reads ${path} from ${syncer.name}'s volume`).toBe(theirs?.name);
          expect(posix.relative(theirs?.mountPath ?? '', root), 'same path in both containers').toBe(
            posix.relative(ours?.mountPath ?? '', root),
          );
        }
      }
    });

    it('sets only environment variables obsync reads, with credential files from the Secret the header creates', () => {
      const known = envVarsObsyncReads();
      for (const e of obsync.env ?? []) expect(known.has(e.name), `${e.name} is not read by obsync`).toBe(true);
      const created = createdSecrets(header);
      const credentialFiles = (obsync.env ?? []).filter((x) => x.name.endsWith('_FILE'));
      expect(credentialFiles.map((e) => e.name).sort()).toEqual(['OBSYNC_KEY_ID_FILE', 'OBSYNC_KEY_SECRET_FILE']);
      for (const e of credentialFiles) {
        const mount = mountOf(obsync, e.value ?? '');
        const secretName = (volume(mount?.name ?? '')?.secret as { secretName?: string } | undefined)?.secretName ?? '';
        expect(created.get(secretName), `${e.name}: the Secret ${secretName} is created in the header`).toBeDefined();
        expect(created.get(secretName)).toContain(posix.relative(mount?.mountPath ?? '', e.value ?? ''));
      }
    });

    it('keeps state and backups on the persistent volume claim, one replica at a time', () => {
      const stateDir = envOf(obsync, 'OBSYNC_STATE_DIR') ?? imageEnv.OBSYNC_STATE_DIR ?? '';
      for (const path of [stateDir, posix.join(stateDir, 'backups')]) {
        const mount = mountOf(obsync, path);
        expect(mount?.readOnly ?? false).toBe(false);
        expect((volume(mount?.name ?? '')?.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName, path).toBe(
          one('PersistentVolumeClaim').metadata.name,
        );
      }
      expect(deployment.spec.replicas).toBe(1);
      expect(deployment.spec.strategy.type).toBe('Recreate');
    });

    it('serves the probes and /metrics on the port it listens on, reached by the Service and the ServiceMonitor', () => {
      const listen = flag(argv, '--listen') ?? envOf(obsync, 'OBSYNC_LISTEN') ?? imageEnv.OBSYNC_LISTEN ?? '';
      const port = obsync.ports?.find((p) => p.containerPort === Number(listen.slice(listen.lastIndexOf(':') + 1)));
      expect(port?.name, `a container port for ${listen}`).toBeDefined();
      expect(obsync.livenessProbe?.httpGet).toEqual({ path: '/livez', port: port?.name });
      expect(obsync.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: port?.name });
      const service = one<{ spec: { selector: Record<string, string>; ports: { name: string; targetPort: string | number }[] } }>(
        'Service',
      );
      expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
      const servicePort = service.spec.ports.find((p) => p.targetPort === port?.name || p.targetPort === port?.containerPort);
      expect(servicePort).toBeDefined();
      const monitor = one<{ spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] } }>(
        'ServiceMonitor',
      );
      expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
      expect(monitor.spec.endpoints).toContainEqual(expect.objectContaining({ port: servicePort?.name, path: '/metrics' }));
    });
  });
});

function loadedManifests(configText: string): string[] | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-k8s-'));
  try {
    writeFileSync(join(dir, 'obsync.yaml'), configText);
    return loadConfig(join(dir, 'obsync.yaml'), {}).config?.manifests;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
