// npm's `prepare` (npm ci, npm install, installs from Git): build dist/ when the TypeScript
// compiler is installed. A production install (`npm ci --omit=dev`, the container's runtime
// dependencies) has no compiler and needs no build: it skips, instead of failing.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(import.meta.url);
try {
  require.resolve('typescript/package.json');
} catch {
  process.stderr.write('obsync prepare: no TypeScript compiler (a production install): dist/ is not built here\n');
  process.exit(0);
}
const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(build.status ?? 1);
