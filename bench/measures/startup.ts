/**
 * Start-up: wall time of `obsync --help` and `obsync validate config-examples` against a bare
 * `node -e 0` on the same machine, as ratios (issue targets: ≤ 2× and ≤ 3×). The commands run
 * interleaved, so a change of load hits them alike; medians and fastest runs are compared.
 *
 * Two environments: the bench's own (the basis of the figures; on the shared machines it
 * holds NODE_EXTRA_CA_CERTS, which adds the parsing of a CA bundle to every node start) and a
 * clean one (PATH only), where the baseline is a bare node start and the ratios are obsync's own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { defineMeasure, median, type Mode, type Result } from '../measure.js';

type Env = Record<string, string | undefined>;

function wallMs(args: string[], cwd: string, env: Env): number {
  const start = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { cwd, stdio: 'ignore', env: { ...env, NO_COLOR: '1' } });
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(res.status)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export default defineMeasure({
  name: 'startup',
  title: '`obsync --help` and `obsync validate config-examples` against `node -e 0`',
  tables: {
    startup: [
      'env',
      'samples',
      'nodeMs',
      'helpMs',
      'validateMs',
      'helpOverNode',
      'validateOverNode',
      'fastestHelpOverNode',
      'fastestValidateOverNode',
    ],
  },
  sizes: { full: { samples: 40 }, quick: { samples: 15 }, smoke: { samples: 1 } },
  run({ samples }, ctx) {
    for (const row of startupBench(ctx.root, samples, ctx.mode)) ctx.record(row);
    return Promise.resolve();
  },
});

function startupBench(root: string, samples: number, mode: Mode): Result[] {
  const quick = mode !== 'full';
  const cli = join(root, 'dist/cli/main.js');
  const cases = { node: ['-e', '0'], help: [cli, '--help'], validate: [cli, 'validate', 'config-examples'] };
  const envs: Record<string, Env> = { inherited: process.env, clean: { PATH: process.env.PATH } };
  const times: Record<string, Record<string, number[]>> = {};
  for (const env of Object.keys(envs)) times[env] = { node: [], help: [], validate: [] };
  // Warm the file cache (the smoke judges no figure: it skips this).
  if (mode !== 'smoke') for (const vars of Object.values(envs)) for (const args of Object.values(cases)) wallMs(args, root, vars);
  for (let i = 0; i < samples; i++) {
    for (const [env, vars] of Object.entries(envs))
      for (const [name, args] of Object.entries(cases)) times[env]?.[name]?.push(wallMs(args, root, vars));
  }
  return Object.keys(envs).map((env) => {
    const t = times[env] ?? {};
    const med = (name: string) => median(t[name] ?? []);
    const fast = (name: string) => Math.min(...(t[name] ?? []));
    return {
      measure: 'startup',
      env,
      ...(env === 'inherited' ? { nodeExtraCaCerts: process.env.NODE_EXTRA_CA_CERTS !== undefined } : {}),
      quick,
      samples,
      nodeMs: Math.round(med('node')),
      helpMs: Math.round(med('help')),
      validateMs: Math.round(med('validate')),
      helpOverNode: ratio(med('help'), med('node')),
      validateOverNode: ratio(med('validate'), med('node')),
      // The fastest runs are the ones the other users of the machine disturbed least.
      fastestHelpOverNode: ratio(fast('help'), fast('node')),
      fastestValidateOverNode: ratio(fast('validate'), fast('node')),
    };
  });
}
