/**
 * lint (issue 43): `obsync lint`'s work over N dashboards + N alerts (the bench estate's manifests,
 * as files) with 20 custom CEL rules in a Policy manifest beside them — load the manifests, run the
 * built-in and the custom rules — ÷ the CPU to merely load the same manifests (the issue's target:
 * ≤ 2). Offline: no service is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifests } from '../../src/manifests/load.js';
import { checkPolicy } from '../../src/policy/check.js';
import { benchManifestsYaml } from '../fixtures.js';
import { inFreshProcess } from '../isolate.js';
import { cpuMs, defineMeasure, fastest, ratio, type BenchContext } from '../measure.js';

interface Args {
  n: number;
  samples: number;
}

/** Twenty rules as a team would write them, over dashboards' tiles and alerts' settings; the estate passes them all. */
const RULES: readonly [kind: 'Dashboard' | 'Alert', expression: string][] = [
  ['Dashboard', 'size(object.spec.name) <= 60'],
  ['Dashboard', 'object.spec.name.matches("^[A-Z]")'],
  ['Dashboard', '"bench" in object.spec.tags'],
  ['Dashboard', 'size(object.spec.tiles) <= 20'],
  ['Dashboard', 'object.spec.tiles.all(t, t.w >= 1 && t.w <= 24)'],
  ['Dashboard', 'object.spec.tiles.all(t, t.x + t.w <= 24)'],
  ['Dashboard', 'object.spec.tiles.all(t, size(t.name) > 0)'],
  ['Dashboard', 'object.spec.tiles.exists(t, t.config.displayType == "line")'],
  ['Dashboard', 'object.metadata.name.matches("^[a-z0-9-]+$")'],
  ['Dashboard', 'target.name != "prod" || "owner" in object.metadata.labels'],
  ['Alert', 'object.spec.threshold > 0'],
  ['Alert', 'object.spec.interval in ["1m", "5m", "15m", "30m", "1h"]'],
  ['Alert', 'has(object.spec.channel.webhook)'],
  ['Alert', 'object.spec.thresholdType in ["above", "below"]'],
  ['Alert', 'size(object.spec.name) <= 80'],
  ['Alert', '!has(object.spec.message) || size(object.spec.message) < 500'],
  ['Alert', 'change.action != "delete"'],
  ['Alert', 'object.metadata.name.matches("^[a-z0-9-]+$")'],
  ['Alert', 'has(object.spec.dashboard) || has(object.spec.savedSearch)'],
  ['Alert', 'object.spec.interval != "1m" || object.spec.threshold >= 10'],
];

function policyYaml(): string {
  const rules = RULES.map(([kind, expression], i) => ({
    id: `house-${i}`,
    severity: 'error',
    kinds: [kind],
    expression,
    message: `house rule ${i}`,
  }));
  return JSON.stringify({ apiVersion: 'obsync/v1', kind: 'Policy', metadata: { name: 'house' }, spec: { rules } });
}

export default defineMeasure({
  name: 'lint',
  title: 'lint of N + N manifests with 20 custom CEL rules: CPU ÷ the manifests load',
  tables: { lint: ['n', 'rules', 'loadCpuMs', 'checkCpuMs', 'lintCpuMs', 'lintOverLoad', 'findings'] },
  sizes: {
    full: { sizes: [1000, 10000], samples: 3 },
    quick: { sizes: [1000], samples: 2 },
    smoke: { sizes: [10], samples: 1 },
  },
  async run({ sizes, samples }, ctx) {
    for (const n of sizes) await inFreshProcess({ module: 'lint', name: 'lint', args: { n, samples } }, ctx);
  },
});

export const cases = {
  async lint({ n, samples }: Args, ctx: BenchContext): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-lint-'));
    try {
      for (const [name, text] of benchManifestsYaml(n, 'self-hosted')) writeFileSync(join(dir, name), text);
      writeFileSync(join(dir, 'policies.yaml'), policyYaml());
      const load = () => loadManifests([dir], { env: {} });
      const check = (loaded: ReturnType<typeof load>) =>
        checkPolicy({ resources: loaded.resources, rules: loaded.policies, settings: undefined, target: { name: '', variant: '' } });
      const lint = () => check(load());
      const loaded = load();
      if (loaded.policies.length !== RULES.length) throw new Error(`bench: ${loaded.policies.length} rules loaded, not ${RULES.length}`);
      // The built-in rules' warnings stay (the alerts' webhook is the seed's, declared by no manifest).
      const findings = check(loaded);
      const failed = findings.find((f) => f.rule.startsWith('house-'));
      if (failed) throw new Error(`bench: the estate fails a house rule: ${failed.message}`);
      const sample = async (f: () => unknown) => {
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          global.gc?.();
          times.push((await cpuMs(() => Promise.resolve(f()))).ms);
        }
        return fastest(times);
      };
      const loadCpu = await sample(load);
      const checkCpu = await sample(() => check(loaded));
      const lintCpu = await sample(lint);
      ctx.record({
        measure: 'lint',
        n,
        rules: RULES.length,
        loadCpuMs: Math.round(loadCpu),
        checkCpuMs: Math.round(checkCpu),
        lintCpuMs: Math.round(lintCpu),
        lintOverLoad: ratio(lintCpu, loadCpu),
        findings: findings.length,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
