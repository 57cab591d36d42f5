/**
 * The status page in a real browser (issue 25): headless Chromium (Debian's package, driven by
 * playwright-core) against `obsync run` and the sandbox on loopback. The page shows the target's
 * state; it updates live (no reload) when a manifest changes and when the target's server fails
 * and comes back; no console error; no secret in the DOM; usable from the keyboard; axe-core finds
 * no serious or critical violation; nothing is requested from another host.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { axeSource, chromiumMissing, launchBrowser, type Browser } from '../support/browser.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, type RunningDaemon } from '../support/daemon.js';

const TOKEN = 'browser-status-token-5b8e2f71';
const missing = chromiumMissing();
if (missing) console.warn(`skipping the status page browser tests: ${missing}`);

let sandbox: SandboxHandle;
let dir: string;
let daemon: RunningDaemon;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const foreignRequests: string[] = [];

async function axeProblems(p: Page): Promise<string[]> {
  await p.evaluate(axeSource());
  const result = await p.evaluate<{ violations: { id: string; impact: string | null; help: string }[] }>('axe.run(document)');
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help}`);
}

/** A property of the focused element (evaluated in the page: the driver has no DOM types). */
const focused = (what: 'textContent' | 'id' | 'href'): Promise<unknown> =>
  page.evaluate(
    `(() => { const e = document.activeElement; return e ? ${what === 'href' ? "e.getAttribute('href')" : `e.${what}`} : null; })()`,
  );

const editTags = (tags: string) => {
  const file = join(dir, 'manifests/checkout.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/tags: \[[^\]]*\]/, `tags: [${tags}]`));
};

describe.skipIf(missing !== null)('the status page in Chromium', () => {
  beforeAll(async () => {
    assertBuilt();
    sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    dir = mkdtempSync(join(tmpdir(), 'obsync-browser-'));
    cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
    writeFileSync(
      join(dir, 'obsync.yaml'),
      `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: shop\n    variant: self-hosted\n    baseUrl: ` +
        `${sandbox.url}\n    rateLimit: {requests: 1000, perSeconds: 1}\n    retries: 0\n    timeoutSeconds: 2\n`,
    );
    daemon = await startDaemon(dir, ['--debounce', '200', '--schedule', '0 0 1 1 *'], {
      OBSYNC_API_KEY: sandbox.credentials.apiKey,
      OBSYNC_STATUS_TOKEN: TOKEN,
    });
    // The token travels the way a reverse proxy would add it: on every request, the stream's too.
    browser = await launchBrowser({ headers: { authorization: `Bearer ${TOKEN}` } });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await browser.context.route('**/*', (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === '127.0.0.1') return route.continue();
      foreignRequests.push(route.request().url());
      return route.abort();
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the target in sync, then updates live when a manifest changes and when its server fails and comes back', async () => {
    await page.goto(`${daemon.url}/`);
    await page.locator('.target.state-in-sync').waitFor({ timeout: 20_000 });
    // Loaded before the first run ended: it was updated live. Mark the document: a reload would lose the mark.
    await page.evaluate('window.obsyncMark = 42');
    await expect.poll(() => page.locator('#live').textContent(), { timeout: 10_000 }).toMatch(/^Live: /);

    editTags('payments, live-update');
    await page.locator('.target td', { hasText: 'updated: tags' }).first().waitFor({ timeout: 20_000 });

    sandbox.faults.set({ error5xx: 1 });
    editTags('payments, server-down');
    await page.locator('.target.state-failing').waitFor({ timeout: 20_000 });
    // The failure is told once, in the target's headline, every time in one format.
    const reason = await page.locator('.target .reason').textContent();
    expect(reason).toMatch(/^Failing since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC .*\(1 failed run\): GET .*HTTP 5\d\d/);
    const error = reason?.slice(reason.indexOf('GET ')) ?? '';
    expect((await page.locator('.target').textContent())?.split(error).length).toBe(2);
    expect(await page.locator('.target .badge').textContent()).toBe('Failing');

    sandbox.faults.clear();
    await page.locator('.target.state-in-sync').waitFor({ timeout: 30_000 });
    expect(await page.evaluate('window.obsyncMark')).toBe(42);
    expect(await page.locator('.target td', { hasText: 'service answers again' }).count()).toBeGreaterThan(0);
  });

  it("names each streamed event by its event: a browser's EventSource.addEventListener gets it, with its data and id", async () => {
    await page.goto(`${daemon.url}/`);
    await page.evaluate(`(() => {
      window.named = [];
      window.unnamed = 0;
      const stream = new EventSource('/api/events/stream?target=shop');
      window.namedStream = stream;
      for (const name of ['run-started', 'updated', 'run-finished'])
        stream.addEventListener(name, (e) => {
          const data = JSON.parse(e.data);
          window.named.push({ type: e.type, event: data.event, id: e.lastEventId, seq: String(data.seq) });
        });
      stream.onmessage = () => { window.unnamed += 1; };
    })()`);
    editTags('payments, named-events');
    type Named = { type: string; event: string; id: string; seq: string };
    const named = () => page.evaluate<Named[]>('window.named');
    await expect
      .poll(async () => (await named()).map((n) => n.type), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['run-started', 'updated', 'run-finished']));
    for (const n of await named()) {
      expect(n.type).toBe(n.event);
      expect(n.id).toBe(n.seq);
    }
    expect(await page.evaluate('window.unnamed')).toBe(0);
    await page.evaluate('window.namedStream.close()');
  });

  it('has no console error, no secret in the DOM, and loads nothing from another host', async () => {
    const dom = await page.content();
    for (const secret of [TOKEN, sandbox.credentials.apiKey]) expect(dom).not.toContain(secret);
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  it('is usable from the keyboard: skip link, the target link, its page', async () => {
    await page.goto(`${daemon.url}/`);
    await page.keyboard.press('Tab');
    expect(await focused('textContent')).toBe('Skip to the content');
    await page.keyboard.press('Enter');
    expect(await focused('id')).toBe('main');
    await page.keyboard.press('Tab');
    expect(await focused('href')).toBe('/targets/shop');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${daemon.url}/targets/shop`);
    expect(await page.locator('h1').textContent()).toBe('Target shop');
    expect(await page.locator('#last-plan').count()).toBe(1);
    expect(await page.locator('#drift-history').count()).toBe(1);
  });

  it('axe-core finds no serious or critical violation on either page', async () => {
    await page.goto(`${daemon.url}/`);
    expect(await axeProblems(page)).toEqual([]);
    await page.goto(`${daemon.url}/targets/shop`);
    expect(await axeProblems(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('signs in a browser without a proxy: the token once in a form, then an HttpOnly cookie, never the token in a URL', async () => {
    const own = await launchBrowser();
    try {
      const p = own.context.pages()[0] ?? (await own.context.newPage());
      const errors: string[] = [];
      p.on('pageerror', (e) => errors.push(e.message));
      await p.goto(`${daemon.url}/targets/shop`);
      expect(await p.locator('h1').textContent()).toBe('obsync status');
      expect(await axeProblems(p)).toEqual([]);
      await p.locator('#token').fill(`${TOKEN}-wrong`);
      await p.locator('button[type=submit]').click();
      await p.locator('[role=alert]').waitFor();
      expect(await own.context.cookies()).toEqual([]);
      await p.locator('#token').fill(TOKEN);
      await p.locator('button[type=submit]').click();
      await p.waitForURL(`${daemon.url}/targets/shop`);
      expect(await p.locator('h1').textContent()).toBe('Target shop');
      // The session reaches the event stream too: the page goes live.
      await expect.poll(() => p.locator('#live').textContent(), { timeout: 10_000 }).toMatch(/^Live: /);
      const cookies = await own.context.cookies();
      expect(cookies).toEqual([expect.objectContaining({ name: 'obsync_status', httpOnly: true, sameSite: 'Strict' })]);
      expect(cookies[0]?.value).not.toContain(TOKEN);
      expect(await p.evaluate('document.cookie')).toBe('');
      expect(p.url()).not.toContain(TOKEN);
      expect(await p.content()).not.toContain(TOKEN);
      expect(errors).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('is readable without JavaScript', async () => {
    const plain = await launchBrowser({ headers: { authorization: `Bearer ${TOKEN}` } });
    try {
      const p = plain.context.pages()[0] ?? (await plain.context.newPage());
      await p.route('**/static/status.js', (route) => route.abort());
      await p.goto(`${daemon.url}/`);
      expect(await p.locator('.target .badge').textContent()).toBe('In sync');
      expect(await p.locator('#live').textContent()).toBe('Reload the page for new data.');
    } finally {
      await plain.close();
    }
  });
});
