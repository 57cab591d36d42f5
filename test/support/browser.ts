/**
 * Headless Chromium from Debian's `chromium` package, driven by playwright-core (no browser is
 * ever downloaded). In CI a missing chromium fails the test that needs it (`.ci/run` installs it);
 * on a developer's machine those tests are skipped with a message saying how to get it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.OBSYNC_CHROMIUM ?? '/usr/bin/chromium';
const inCi = process.env.CI !== undefined && process.env.CI !== 'false';

/** Why browser tests cannot run here, or null. In CI this is an error, not a skip. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const why = `${CHROMIUM} not found: install Debian's chromium package (apt-get install chromium) or set OBSYNC_CHROMIUM`;
  if (inCi) throw new Error(`browser tests need Chromium: ${why}`);
  return why;
}

/** The flags that keep Chromium off the network and its own services: only loopback is ever reached. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(opts: { headers?: Record<string, string>; width?: number; height?: number } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'obsync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    ...(opts.headers ? { extraHTTPHeaders: opts.headers } : {}),
    viewport: { width: opts.width ?? 1100, height: opts.height ?? 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** axe-core's source, evaluated in the page by the test driver (the page's CSP would refuse a script tag). */
export function axeSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
}
