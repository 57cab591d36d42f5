/**
 * Start-up (issue 20): `obsync --help` and `obsync validate` load only what they use. The built
 * CLI runs with a module loader hook that lists every module it loads; no durations are asserted
 * (the bench measures those: `npm run bench -- --quick --only startup`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cliInChildProcesses, runCli } from '../support/cli.js';

// What a process loads at start-up is the subject here.
cliInChildProcesses();

const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-startup-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The URLs of the modules `obsync <args>` loads (ES modules and the CommonJS files they require). */
async function loadedModules(name: string, args: string[]): Promise<string[]> {
  const log = join(dir, `${name}.log`);
  const hooks = join(dir, `${name}-hooks.mjs`);
  const registration = join(dir, `${name}-register.mjs`);
  writeFileSync(log, '');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  ` +
      `appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  writeFileSync(registration, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const result = await runCli(args, { cwd: ROOT, env: { NODE_OPTIONS: `--import=${pathToFileURL(registration).href}` } });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** Packages and source folders that only the commands talking to a service (or serving) need. */
const SERVICE_ONLY = [
  /\/node_modules\/(undici|pino|pino-[^/]+|prom-client|chokidar|node-cron|pg)\//,
  /\/dist\/(engine|planner|remote|sandbox|daemon|applier|render|export|inventory|log)\//,
];

describe('start-up: modules loaded', () => {
  it(
    'validate loads the manifest code, zod and yaml, and nothing ' + 'of the HTTP client, engine, sandbox, daemon, logs or metrics',
    async () => {
      const modules = await loadedModules('validate', ['validate', 'config-examples']);
      // The hook sees the modules (else the checks below would pass vacuously).
      expect(modules.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
      expect(modules.some((u) => u.endsWith('/dist/manifests/load.js'))).toBe(true);
      for (const pattern of SERVICE_ONLY) expect(modules.filter((u) => pattern.test(u))).toEqual([]);
      // Only the validate command's module.
      expect(modules.filter((u) => u.includes('/dist/cli/commands/')).map((u) => u.replace(/.*\/dist\//, ''))).toEqual([
        'cli/commands/validate.js',
      ]);
    },
  );

  it('--help loads commander and the command list only: no command module, zod or yaml', async () => {
    const modules = await loadedModules('help', ['--help']);
    expect(modules.some((u) => u.includes('/node_modules/commander/'))).toBe(true);
    expect(modules.filter((u) => u.includes('/dist/cli/commands/') || /\/node_modules\/(zod|yaml)\//.test(u))).toEqual([]);
    for (const pattern of SERVICE_ONLY) expect(modules.filter((u) => pattern.test(u))).toEqual([]);
  });
});
