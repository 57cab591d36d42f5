// Takes the README's screenshots of the status page (npm run screenshots): `obsync run` against a
// sandbox on loopback, Debian's chromium through playwright-core, one PNG with the target in sync
// and one with its server failing. Writes docs/images/status-in-sync.png and status-failing.png.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { startSandbox } from '../dist/sandbox/index.js';

const root = join(import.meta.dirname, '..');
const out = join(root, 'docs', 'images');
const CHROMIUM = process.env.OBSYNC_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
const dir = mkdtempSync(join(tmpdir(), 'obsync-screenshots-'));
const profile = mkdtempSync(join(tmpdir(), 'obsync-screenshots-chromium-'));
cpSync(join(root, 'config-examples/team/dashboards'), join(dir, 'manifests'), { recursive: true });
writeFileSync(
  join(dir, 'obsync.yaml'),
  `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: production\n    variant: self-hosted\n    baseUrl: ` +
    `${sandbox.url}\n    rateLimit: {requests: 1000, perSeconds: 1}\n    retries: 0\n    timeoutSeconds: 2\n`,
);
const daemon = spawn(
  process.execPath,
  [join(root, 'dist/cli/main.js'), 'run', '--listen', '127.0.0.1:0', '--debounce', '200', '--schedule', '*/5 * * * *'],
  {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', OBSYNC_API_KEY: sandbox.credentials.apiKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let log = '';
daemon.stderr.on('data', (d) => (log += d.toString()));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: FLAGS,
  viewport: { width: 1000, height: 720 },
});
try {
  const url = await until('the daemon', () => /on (http:\/\/\S+?)\/?\n/.exec(log)?.[1]);
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(out, { recursive: true });
  await page.goto(`${url}/`);
  await page.locator('.target.state-in-sync').waitFor({ timeout: 30_000 });
  // A change by file, so the events show more than the start-up run.
  const file = join(dir, 'manifests/checkout.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/tags: \[[^\]]*\]/, 'tags: [payments, checkout, critical]'));
  await page.locator('.target td', { hasText: 'updated: tags' }).first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(out, 'status-in-sync.png') });
  sandbox.faults.set({ error5xx: 1 });
  writeFileSync(file, readFileSync(file, 'utf8').replace(/tags: \[[^\]]*\]/, 'tags: [payments, checkout]'));
  await page.locator('.target.state-failing').waitFor({ timeout: 30_000 });
  await until('a retry', () => ((log.match(/"result":"failure"/g) ?? []).length >= 2 ? true : undefined));
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(out, 'status-failing.png') });
  process.stdout.write(`wrote ${join(out, 'status-in-sync.png')} and ${join(out, 'status-failing.png')}\n`);
} finally {
  await context.close();
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('exit', r));
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
