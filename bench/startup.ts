/**
 * Start-up: wall time of `obsync --help` and `obsync validate config-examples` against a bare
 * `node -e 0` on the same machine, as ratios (issue targets: ≤ 2× and ≤ 3×). The three commands
 * run interleaved, so a change of load hits them alike; medians and fastest runs are compared.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Result } from './measure.js';

function wallMs(args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { cwd, stdio: 'ignore', env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(res.status)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function startupBench(root: string, samples: number, quick: boolean): Result {
  const cli = join(root, 'dist/cli/main.js');
  const cases = { node: ['-e', '0'], help: [cli, '--help'], validate: [cli, 'validate', 'config-examples'] };
  const times = { node: [] as number[], help: [] as number[], validate: [] as number[] };
  for (const args of Object.values(cases)) wallMs(args, root); // warm the file cache
  for (let i = 0; i < samples; i++) for (const [name, args] of Object.entries(cases)) times[name as keyof typeof times].push(wallMs(args, root));
  const nodeMs = median(times.node);
  const helpMs = median(times.help);
  const validateMs = median(times.validate);
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  // The fastest runs are the ones the other users of the machine disturbed least.
  const fastest = { node: Math.min(...times.node), help: Math.min(...times.help), validate: Math.min(...times.validate) };
  return {
    measure: 'startup',
    quick,
    samples,
    nodeMs: Math.round(nodeMs),
    helpMs: Math.round(helpMs),
    validateMs: Math.round(validateMs),
    helpOverNode: ratio(helpMs, nodeMs),
    validateOverNode: ratio(validateMs, nodeMs),
    fastestMs: { node: Math.round(fastest.node), help: Math.round(fastest.help), validate: Math.round(fastest.validate) },
    fastestHelpOverNode: ratio(fastest.help, fastest.node),
    fastestValidateOverNode: ratio(fastest.validate, fastest.node),
  };
}
