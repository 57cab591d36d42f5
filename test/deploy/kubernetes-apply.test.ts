/**
 * Every Kubernetes example is safe to `kubectl apply` as documented, and again: the commands in
 * each variant's header are replayed on a simulated cluster (./kubectl-sim.ts) without the
 * Prometheus Operator, the user then rotates the Secrets, and a second apply of the same commands
 * and of the whole folder must leave the Secrets as the user made them and change nothing else. No
 * applied file holds a Secret (its placeholder would overwrite the real one on every apply) or a
 * kind that needs a CRD, except a folder of its own whose every mention says it is optional; the
 * pods find every Secret key and ConfigMap they read; applying the top folder applies no variant.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appliedFiles, Cluster, documentedCommands, isBuiltIn, manifestObjects } from './kubectl-sim.js';

const REPO = join(import.meta.dirname, '../..');
const ROOT = join(REPO, 'deploy/kubernetes');
const everyFile = appliedFiles(ROOT, true);
const rel = (f: string) => relative(REPO, f);
const folderOf = (f: string) => `${rel(dirname(f))}/`;
/** A variant: a folder whose files run obsync (a Deployment); its first such file's header documents the commands. */
const variants = [...new Set(everyFile.filter((f) => manifestObjects(f).some((o) => o.kind === 'Deployment')).map(folderOf))];
const headerOf = (folder: string) =>
  readFileSync(everyFile.find((f) => folderOf(f) === folder && manifestObjects(f).some((o) => o.kind === 'Deployment')) ?? '', 'utf8');
const everyHeaderCommand = everyFile.flatMap((f) => documentedCommands(readFileSync(f, 'utf8')));

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[];
}
interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  volumeMounts?: { name: string; mountPath: string }[];
}

/** What keeps a pod of the cluster's Deployments from starting: a Secret, a key of one, or a ConfigMap it reads that is not there. */
function unmetReferences(cluster: Cluster): string[] {
  const problems: string[] = [];
  for (const d of [...cluster.objects.values()].filter((o) => o.kind === 'Deployment')) {
    const ns = d.metadata.namespace;
    const pod = (d.spec as { template: { spec: PodSpec } }).template.spec;
    const secretKeys = (name: string) => Object.keys((cluster.get('Secret', 'v1', ns, name)?.data as object | undefined) ?? {});
    for (const v of pod.volumes ?? []) {
      if (v.secret && !cluster.get('Secret', 'v1', ns, v.secret.secretName))
        problems.push(`volume ${v.name}: no Secret ${v.secret.secretName}`);
      if (v.configMap && !cluster.get('ConfigMap', 'v1', ns, v.configMap.name))
        problems.push(`volume ${v.name}: no ConfigMap ${v.configMap.name}`);
    }
    for (const c of [...(pod.initContainers ?? []), ...pod.containers])
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && ref.optional !== true && !secretKeys(ref.name).includes(ref.key))
          problems.push(`${c.name} ${e.name}: no key ${ref.key} in ${ref.name}`);
        // OBSYNC_*_FILE pointing into a Secret volume: the file is that Secret's key.
        const mount = c.volumeMounts?.find((m) => e.name.endsWith('_FILE') && e.value?.startsWith(`${m.mountPath}/`));
        const secret = pod.volumes?.find((v) => v.name === mount?.name)?.secret;
        const key = e.value?.slice((mount?.mountPath.length ?? 0) + 1) ?? '';
        if (secret && !secretKeys(secret.secretName).includes(key))
          problems.push(`${c.name} ${e.name}: no key ${key} in ${secret.secretName}`);
      }
  }
  return problems;
}

const fresh = () => new Cluster(REPO, (path) => `the user's ${path}`);
const run = (cluster: Cluster, commands: readonly { argv: string[] }[]) => commands.flatMap((c) => cluster.run(c.argv));
const snapshot = (cluster: Cluster) => structuredClone(new Map(cluster.objects));

describe('deploy/kubernetes: every example is safe to apply as documented, and again', () => {
  it('holds two variants, each in a folder of its own; the top folder applies nothing', () => {
    expect(variants.sort()).toEqual(['deploy/kubernetes/replicas/', 'deploy/kubernetes/single/']);
    expect(appliedFiles(ROOT, false)).toEqual([]);
    expect(readdirSync(ROOT).filter((f) => !f.startsWith('.'))).toEqual(expect.arrayContaining(['single', 'replicas']));
  });

  it(
    'no applied file holds a Secret; kinds that need a CRD only in a ' +
      'folder of their own, documented as optional wherever it is applied',
    () => {
      for (const file of everyFile) {
        const objects = manifestObjects(file);
        expect(
          objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
          rel(file),
        ).toEqual([]);
        const needCrd = objects.filter((o) => !isBuiltIn(o.apiVersion, o.kind));
        if (needCrd.length === 0) continue;
        const folder = folderOf(file);
        expect(
          everyFile.filter((f) => folderOf(f) === folder).flatMap((f) => manifestObjects(f).filter((o) => isBuiltIn(o.apiVersion, o.kind))),
          `${folder} mixes built-in kinds with ${needCrd.map((o) => o.kind).join(', ')}`,
        ).toEqual([]);
        const applying = everyHeaderCommand.filter(
          (c) => c.argv.includes('apply') && c.argv.some((a) => folder.startsWith(a.replace(/\/?$/, '/'))),
        );
        expect(applying.length, `a header applies ${folder}`).toBeGreaterThan(0);
        for (const c of applying) expect(c.optional, `${c.text} is marked # optional`).toBe(true);
      }
    },
  );

  it(
    'the variants name the same Namespace, ConfigMap and Deployment: ' + 'applying one after the other replaces the daemon, never runs two',
    () => {
      const names = (folder: string) =>
        everyFile
          .filter((f) => folderOf(f) === folder)
          .flatMap(manifestObjects)
          .filter((o) => ['Namespace', 'ConfigMap', 'Deployment'].includes(o.kind))
          .map((o) => Cluster.key(o.kind, o.apiVersion, o.metadata.namespace, o.metadata.name))
          .sort();
      const [first = '', ...others] = variants;
      for (const v of others) expect(names(v), v).toEqual(names(first));
    },
  );

  for (const variant of variants) {
    describe(variant, () => {
      const commands = documentedCommands(headerOf(variant));
      const required = commands.filter((c) => !c.optional);
      const applies = required.filter((c) => c.argv.includes('apply'));

      it('documents its commands: an apply of this folder, then the Secrets the pods read', () => {
        expect(applies.map((c) => c.text)).toContain(`kubectl apply -f ${variant}`);
        expect(required.some((c) => c.text.includes('create secret'))).toBe(true);
      });

      it('as documented, on a cluster without the Prometheus Operator: every command succeeds and the pods find all they read', () => {
        const cluster = fresh();
        expect(run(cluster, required)).toEqual([]);
        expect(unmetReferences(cluster)).toEqual([]);
        // Before the Secrets exist the pods wait for them (they are named, not optional).
        const appliedOnly = fresh();
        expect(run(appliedOnly, applies)).toEqual([]);
        expect(unmetReferences(appliedOnly).length).toBeGreaterThan(0);
      });

      it(
        'applied again (its commands, and the whole folder) over Secrets the user rotated: the Secrets stay the user’s and nothing else ' +
          'changes',
        () => {
          const cluster = fresh();
          expect(run(cluster, required)).toEqual([]);
          for (const secret of [...cluster.objects.values()].filter((o) => o.kind === 'Secret'))
            secret.data = Object.fromEntries(
              Object.keys(secret.data as object).map((k) => [k, Buffer.from(`rotated ${k}`).toString('base64')]),
            );
          const before = snapshot(cluster);
          expect(run(cluster, applies)).toEqual([]);
          expect(cluster.run(['kubectl', 'apply', '-f', variant])).toEqual([]);
          expect(cluster.objects).toEqual(before);
          // `create secret` again is refused, never an overwrite.
          for (const c of required.filter((x) => x.text.includes('create secret')))
            expect(cluster.run(c.argv).join()).toMatch(/already exists/);
          expect(cluster.objects).toEqual(before);
        },
      );

      it('its optional commands fail without the operator’s CRDs, and apply twice with them', () => {
        const optional = commands.filter((c) => c.optional);
        expect(optional.length).toBeGreaterThan(0);
        const without = fresh();
        run(without, required);
        for (const c of optional) expect(without.run(c.argv).join(), c.text).toMatch(/no matches for kind/);
        const withCrds = fresh();
        withCrds.crds.add('monitoring.coreos.com/ServiceMonitor');
        expect(run(withCrds, [...required, ...optional])).toEqual([]);
        const before = snapshot(withCrds);
        expect(run(withCrds, optional)).toEqual([]);
        expect(withCrds.objects).toEqual(before);
      });
    });
  }
});
