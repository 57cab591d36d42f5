// Compares the sandbox with a vendor snapshot (docs/fidelity-newer-vendors.md, "A watch on drift"):
// the routes and body fields of hyperdx's v2 routers (their zod schemas) against the sandbox's
// route tables, and the vendor's OpenAPI document against the baseline the sandbox follows.
// It reads files only (a checkout, or a git directory through `git show` with every transport
// but local files refused): it never contacts a host.
//
//   node scripts/vendor-drift.js (--checkout DIR | --git-dir DIR [--rev REV]) [--overlay DIR] [--openapi FILE] [--baseline FILE] [--check]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { compare, format, hasDrift } from './vendor-drift/compare.js';

const USAGE =
  'usage: node scripts/vendor-drift.js (--checkout DIR | --git-dir DIR [--rev REV]) [--overlay DIR]\n' +
  '                                    [--openapi FILE] [--baseline FILE] [--check]\n';
const VENDOR_OPENAPI = 'packages/api/openapi.json';

function parseArgs(argv) {
  const flags = { rev: 'HEAD', check: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--check') flags.check = true;
    else if (['--checkout', '--git-dir', '--rev', '--overlay', '--openapi', '--baseline'].includes(arg) && argv[i + 1] !== undefined)
      flags[arg.slice(2).replace('-d', 'D')] = argv[++i];
    else throw new Error(`unknown or incomplete argument ${arg}`);
  }
  if (Boolean(flags.checkout) === Boolean(flags.gitDir)) throw new Error('give one of --checkout and --git-dir');
  return flags;
}

const fileReader = (root) => (path) => {
  const full = join(root, path);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
};

function gitReader(gitDir, rev) {
  // Local objects only: no lazy fetch of a partial clone's missing objects, no transport but files.
  const env = { ...process.env, GIT_NO_LAZY_FETCH: '1', GIT_ALLOW_PROTOCOL: 'file', GIT_TERMINAL_PROMPT: '0' };
  return (path) => {
    try {
      return execFileSync('git', ['--git-dir', gitDir, 'show', `${rev}:${path}`], {
        env,
        encoding: 'utf8',
        stdio: 'pipe',
        maxBuffer: 64 << 20,
      });
    } catch {
      return undefined;
    }
  };
}

function defaultBaseline() {
  const dirs = [process.env.OBSYNC_SPECS_DIR, resolve(import.meta.dirname, '../../shared/specs'), '/work/shared/specs'];
  return dirs
    .filter(Boolean)
    .map((d) => join(d, 'hyperdx-openapi.json'))
    .find((f) => existsSync(f));
}

function main() {
  const flags = parseArgs(process.argv.slice(2));
  const snapshotRead = flags.checkout ? fileReader(flags.checkout) : gitReader(flags.gitDir, flags.rev);
  // Newer files (the public code index's) laid out as in the repository take the place of the snapshot's.
  const overlayRead = flags.overlay ? fileReader(flags.overlay) : () => undefined;
  const vendorRead = (path) => overlayRead(path) ?? snapshotRead(path);
  const newerText = flags.openapi ? readFileSync(flags.openapi, 'utf8') : vendorRead(VENDOR_OPENAPI);
  const baseline = flags.baseline ?? defaultBaseline();
  const result = compare({
    vendorRead,
    sandboxRead: fileReader(resolve(import.meta.dirname, '..')),
    newerDoc: newerText === undefined ? undefined : JSON.parse(newerText),
    baselineDoc: baseline ? JSON.parse(readFileSync(baseline, 'utf8')) : undefined,
  });
  const vendor = `${flags.checkout ?? `${flags.gitDir} at ${flags.rev}`}${flags.overlay ? `, overlaid with ${flags.overlay}` : ''}`;
  process.stdout.write(
    format(result, { vendor, newer: flags.openapi ?? `${VENDOR_OPENAPI} of the snapshot`, baseline: baseline ?? '(none)' }),
  );
  if (!newerText || !baseline) process.stdout.write('\n(OpenAPI not compared: give --openapi and --baseline, or OBSYNC_SPECS_DIR)\n');
  if (flags.check && hasDrift(result)) process.exitCode = 1;
}

try {
  main();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exitCode = 2;
}
