/** The example workflow (deploy/github-actions), read once for its tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const REPO = join(import.meta.dirname, '../..');
export const WORKFLOW = join(REPO, 'deploy/github-actions/obsync.yml');
export const CONFIG = join(REPO, 'deploy/github-actions/obsync.yaml');
export const text = readFileSync(WORKFLOW, 'utf8');

export interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  'working-directory'?: string;
}
export interface Job {
  if?: string;
  permissions?: Record<string, string>;
  environment?: string;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  steps: Step[];
}
export const workflow = parse(text) as {
  on: Record<string, { branches?: string[] }>;
  env: Record<string, string>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
export const jobs = Object.entries(workflow.jobs);
export const steps = jobs.flatMap(([, job]) => job.steps);
export const plan = workflow.jobs.plan as Job;
export const apply = workflow.jobs.apply as Job;

/** The words of every line of a `run:` script that calls obsync, up to a redirection or pipe. */
export function obsyncCommands(script: string): string[][] {
  return script
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^obsync(\s|$)/.test(l))
    .map((l) => {
      const words: string[] = [];
      for (const m of l.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
        const word = m[1] ?? m[2] ?? m[3] ?? '';
        if (/^(\d?>>?|\||&&|;|2>&1)/.test(word)) break;
        words.push(word);
      }
      return words.slice(1);
    });
}

export const commands = steps.flatMap((s) => obsyncCommands(s.run ?? ''));
