/** docs/environment.md's table of environment variables lists every variable obsync reads (found in the source, not kept by hand). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { envVarsObsyncReads } from './env-vars.js';

const DEPLOYMENT = readFileSync(join(import.meta.dirname, '../../docs/deployment.md'), 'utf8');

function section(title: string): string {
  const start = DEPLOYMENT.indexOf(`## ${title}\n`);
  if (start < 0) throw new Error(`docs/deployment.md has no "## ${title}" section`);
  const end = DEPLOYMENT.slice(start + 3).search(/\n##+ /);
  return end < 0 ? DEPLOYMENT.slice(start) : DEPLOYMENT.slice(start, start + 3 + end);
}

it('documents every environment variable obsync reads', () => {
  const table = readFileSync(join(import.meta.dirname, '../../docs/environment.md'), 'utf8');
  const missing = [...envVarsObsyncReads()].filter((name) => !table.includes(`\`${name}\``));
  expect(missing).toEqual([]);
});

it('says that the container image was not built here, and what is tested instead', () => {
  expect(section('Container image')).toMatch(/has not been built on these machines[\s\S]*no Docker engine/);
});
