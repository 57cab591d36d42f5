/**
 * deploy/kubernetes/replicas (issue 28) works as shipped, as far as it can be checked without a
 * cluster: every object valid against the official schemas (strict on unknown fields); Pod
 * Security "restricted"; three replicas of `obsync run` (flags the CLI accepts) on the PostgreSQL
 * state, whose URL and the targets' keys come from the Secrets the header's commands create; a
 * config obsync loads, with several targets to share; a rollout and a PodDisruptionBudget that
 * take one replica at a time; probes and /metrics on the port obsync listens on (the optional
 * ServiceMonitor of deploy/kubernetes/prometheus-operator too). Applying it as documented, twice,
 * is ./kubernetes-apply.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseObsyncArgs } from './cli-args.js';
import { execForm, last, parseDockerfile, type Stage } from './dockerfile.js';
import { envVarsObsyncReads } from './env-vars.js';
import { schemaErrors, typeErrors, type K8sObject } from './k8s-schema.js';
import { createdSecrets, manifestObjects } from './kubectl-sim.js';

const REPO = join(import.meta.dirname, '../..');
const FILE = join(REPO, 'deploy/kubernetes/replicas/obsync.yaml');
const MONITOR_FILE = join(REPO, 'deploy/kubernetes/prometheus-operator/servicemonitor.yaml');

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  ports?: { name?: string; containerPort: number }[];
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
}
type Doc = K8sObject & { metadata: { name: string; labels?: Record<string, string> } };

const docs = [...manifestObjects(FILE), ...manifestObjects(MONITOR_FILE)] as Doc[];
const all = (kind: string) => docs.filter((d) => d.kind === kind);
const one = <T>(kind: string): T & Doc => {
  const found = all(kind);
  if (found.length !== 1) throw new Error(`${FILE}: expected one ${kind}, found ${found.length}`);
  return found[0] as T & Doc;
};

const deployment = one<{
  spec: {
    replicas: number;
    strategy: { type: string; rollingUpdate?: { maxUnavailable?: number; maxSurge?: number } };
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        securityContext?: Record<string, unknown>;
        terminationGracePeriodSeconds?: number;
        initContainers?: Container[];
        containers: Container[];
        volumes?: ({ name: string } & Record<string, unknown>)[];
      };
    };
  };
}>('Deployment');
const pod = deployment.spec.template.spec;
const obsync = pod.containers.find((c) => c.name === 'obsync') as Container;
const configMap = one<{ data: Record<string, string> }>('ConfigMap');
const pdb = one<{ spec: { maxUnavailable?: number; minAvailable?: number; selector: { matchLabels: Record<string, string> } } }>(
  'PodDisruptionBudget',
);
const dockerImage = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8')).at(-1) as Stage;
const entrypoint = execForm(last(dockerImage, 'ENTRYPOINT')?.args ?? '') ?? [];
const argv = [...entrypoint.slice(2), ...(obsync.args ?? [])];
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
};
const configPath = flag('--config') ?? '';
const configText = (() => {
  const mount = obsync.volumeMounts?.find((m) => configPath.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes?.find((v) => v.name === mount?.name) as { configMap?: { name: string } } | undefined;
  expect(volume?.configMap?.name).toBe(configMap.metadata.name);
  return configMap.data[posix.relative(mount?.mountPath ?? '/', configPath)] ?? '';
})();
/** The config's ${env:NAME} references: the variables the Deployment must set. */
const referenced = new Set([...configText.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => m[1] ?? ''));

function loaded(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-k8s-replicas-'));
  try {
    writeFileSync(join(dir, 'obsync.yaml'), configText);
    return loadConfig(join(dir, 'obsync.yaml'), env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/kubernetes/replicas/obsync.yaml', () => {
  it('is valid against the official Kubernetes and prometheus-operator schemas, with no unknown field', () => {
    expect(docs.map((d) => d.kind)).toEqual(
      expect.arrayContaining(['Deployment', 'PodDisruptionBudget', 'ConfigMap', 'Service', 'ServiceMonitor']),
    );
    expect(docs.flatMap((d) => schemaErrors(d).map((e) => `${d.kind}/${d.metadata.name}: ${e}`))).toEqual([]);
    expect(typeErrors(docs, (i) => `${docs[i]?.kind}/${docs[i]?.metadata.name}`)).toEqual([]);
  });

  it('meets Pod Security "restricted" in every container, with a read-only root file system', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      expect(c.securityContext, c.name).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(c.securityContext?.capabilities?.drop, c.name).toContain('ALL');
    }
    expect(pod.volumes?.some((v) => 'persistentVolumeClaim' in v || 'hostPath' in v)).toBe(false);
  });

  it('runs three replicas of `obsync run` in apply mode, replaced one at a time and disrupted one at a time', async () => {
    const parsed = await parseObsyncArgs(argv);
    expect(parsed.command).toBe('run');
    expect(flag('--mode') ?? 'apply').toBe('apply');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(deployment.spec.strategy.rollingUpdate?.maxUnavailable).toBe(1);
    // The budget selects these pods and lets at most one go at once.
    expect(deployment.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    const allowed = pdb.spec.maxUnavailable ?? deployment.spec.replicas - (pdb.spec.minAvailable ?? 0);
    expect(allowed).toBe(1);
    // obsync exits within 10 s of SIGTERM after releasing its targets: the grace period leaves room.
    expect(pod.terminationGracePeriodSeconds ?? 30).toBeGreaterThanOrEqual(15);
  });

  it(
    'shares several targets over the PostgreSQL state, its URL and the keys from the Secrets the header creates, and sets only ' +
      'variables obsync reads',
    () => {
      const env = Object.fromEntries(
        [...referenced].map((name) => [name, name === 'OBSYNC_STATE_URL' ? 'postgres://u:p@db:5432/obsync' : 'k']),
      );
      const { config, diagnostics } = loaded(env);
      expect(diagnostics).toEqual([]);
      expect(config?.state?.backend).toBe('postgres');
      expect(config?.targets?.length ?? 0).toBeGreaterThanOrEqual(3);
      const created = createdSecrets(readFileSync(FILE, 'utf8'));
      const known = envVarsObsyncReads();
      for (const e of obsync.env ?? []) {
        expect(known.has(e.name) || referenced.has(e.name), `${e.name} is neither read by obsync nor used by the config`).toBe(true);
        const ref = e.valueFrom?.secretKeyRef;
        if (!ref) continue;
        expect(created.get(ref.name) ?? [], `${e.name} from ${ref.name}/${ref.key}`).toContain(ref.key);
      }
      for (const name of referenced)
        expect(
          obsync.env?.some((e) => e.name === name && e.valueFrom?.secretKeyRef),
          name,
        ).toBe(true);
    },
  );

  it('serves the probes and /metrics on the port it listens on, reached by the Service and the ServiceMonitor', () => {
    const listen = flag('--listen') ?? '';
    const port = obsync.ports?.find((p) => p.containerPort === Number(listen.slice(listen.lastIndexOf(':') + 1)));
    expect(port?.name).toBeDefined();
    expect(obsync.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: port?.name });
    expect(obsync.livenessProbe?.httpGet).toEqual({ path: '/livez', port: port?.name });
    const service = one<{ spec: { selector: Record<string, string>; ports: { name: string; targetPort: string | number }[] } }>('Service');
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    const monitor = one<{ spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] } }>(
      'ServiceMonitor',
    );
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints).toContainEqual(expect.objectContaining({ path: '/metrics' }));
  });
});
