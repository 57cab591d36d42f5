// `node scripts/parallel.js typecheck lint build`: runs those npm scripts at the same time and
// fails when any fails. Each is one process mostly waiting on one core (tsc, eslint), so on the
// two cores CI has they finish in about the time of the longest instead of the sum. Each one's
// output is printed whole when it ends, never interleaved with another's.
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const scripts = process.argv.slice(2);
const npm = process.env.npm_execpath;

function run(script) {
  return new Promise((done) => {
    const started = Date.now();
    const child = npm
      ? spawn(process.execPath, [npm, 'run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'ok' : `failed (${signal ?? `exit code ${code}`})`;
      process.stdout.write(`── npm run ${script}: ${status} in ${seconds} s\n${Buffer.concat(output).toString()}`);
      done(code === 0);
    });
  });
}

const results = await Promise.all(scripts.map(run));
process.exitCode = results.every(Boolean) ? 0 : 1;
