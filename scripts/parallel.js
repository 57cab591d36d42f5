// `node scripts/parallel.js typecheck lint+test:slow test:suite`: runs each argument (a lane) at the
// same time and fails when any script fails. A lane of `a+b` runs b after a (whether a passed or
// not, so one run shows every failure): the slow tests wait for eslint's core instead of taking
// CPU from the suite. eslint keeps about one core busy and the tests wait on child processes and
// loopback servers much of the time, so on the two cores CI has the lanes finish well before the
// sum of their times. Output is streamed as it comes, each line prefixed with its script.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { createInterface } from 'node:readline';

const lanes = process.argv.slice(2).map((lane) => lane.split('+'));
const scripts = lanes.flat();
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

async function runLane(lane) {
  const passed = [];
  for (const script of lane) passed.push(await run(script));
  return passed.every(Boolean);
}

const results = await Promise.all(lanes.map(runLane));
process.exitCode = results.every(Boolean) ? 0 : 1;
