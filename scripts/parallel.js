// `node scripts/parallel.js typecheck lint test:suite`: runs those npm scripts at the same time and
// fails when any fails. tsc and eslint each keep about one core busy and the tests wait on child
// processes and loopback servers much of the time, so on the two cores CI has they finish well
// before the sum of their times. Output is streamed as it comes, each line prefixed with its script.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { createInterface } from 'node:readline';

const scripts = process.argv.slice(2);
const npm = process.env.npm_execpath;
const width = Math.max(...scripts.map((s) => s.length));

function run(script) {
  return new Promise((done) => {
    const started = Date.now();
    const args = ['run', '--silent', script];
    const child = npm
      ? spawn(process.execPath, [npm, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const prefix = `[${script.padEnd(width)}] `;
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix}${line}\n`));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `${prefix}── npm run ${script}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit code ${code}`})`} in ${seconds} s\n`,
      );
      done(code === 0);
    });
  });
}

const results = await Promise.all(scripts.map(run));
process.exitCode = results.every(Boolean) ? 0 : 1;
