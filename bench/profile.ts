/** `--profile`: a CPU profile of one plan (written as .cpuprofile) and its top self-time functions. */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import type { Result } from './measure.js';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** `measure`: the table of the row (`plan-profile`, `steady-profile`). */
export async function profilePlan(
  measure: string,
  plan: () => Promise<unknown>,
  file: string,
  inputs: Record<string, unknown>,
): Promise<Result> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await plan();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  writeFileSync(file, JSON.stringify(profile));
  const top = topSelfTime(profile.nodes as ProfileNode[]);
  return { measure, ...inputs, file: relative(process.cwd(), file), top };
}

/** The 12 functions with the most self time in a CPU profile's nodes, as `12.3% name file:line`. */
export function topSelfTime(nodes: readonly ProfileNode[], count = 12): string[] {
  const total = nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const bySite = new Map<string, number>();
  for (const n of nodes) {
    const where = n.callFrame.url
      ? `${n.callFrame.functionName || '(anonymous)'} ${shorten(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`
      : n.callFrame.functionName;
    bySite.set(where, (bySite.get(where) ?? 0) + (n.hitCount ?? 0));
  }
  return [...bySite.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([where, hits]) => `${((100 * hits) / total).toFixed(1)}% ${where}`);
}

function shorten(url: string): string {
  const at = url.search(/\/(dist-bench|dist|node_modules)\//);
  return at >= 0 ? url.slice(at + 1) : url;
}
