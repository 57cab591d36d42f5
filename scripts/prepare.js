// npm's `prepare` (npm ci, npm install, installs from Git): build dist/ when the TypeScript
// compiler is installed. A production install (`npm ci --omit=dev`, the container's runtime
// dependencies) has no compiler and needs no build: it skips, instead of failing.
// The compiler is looked for in this package's own node_modules only: a node_modules in a parent
// directory (a checkout under a folder that has one) is not this install's.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

if (!existsSync(new URL('../node_modules/typescript/package.json', import.meta.url))) {
  process.stderr.write('obsync prepare: no TypeScript compiler (a production install): dist/ is not built here\n');
  process.exit(0);
}
const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(build.status ?? 1);
