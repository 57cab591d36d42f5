/**
 * The bench compiled for the smoke test, into `outDir` with the layout `npm run bench` gives
 * (`tsc -p tsconfig.bench.json`), by the native compiler with `--noCheck`: types are not checked
 * here — `npm run typecheck` checks bench/ with everything else — so a compile takes about 2 s of
 * CPU. (TypeScript 5.9's transpileModule, file by file, took 15 s.)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Compiles src/ and bench/ (and the test support the bench imports); answers how many JavaScript files came out. */
export function transpileBench(root: string, outDir: string): number {
  const tsc = join(root, 'node_modules/typescript-native/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.bench.json'), '--noCheck', '--sourceMap', 'false', '--outDir', outDir], {
    cwd: root,
    stdio: 'pipe',
  });
  // The files src/ reads beside its JavaScript (the OTLP receiver's protos), as `npm run bench` copies them.
  execFileSync(process.execPath, [join(root, 'scripts/copy-assets.js'), join(outDir, 'src')], { cwd: root, stdio: 'pipe' });
  return readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.js')).length;
}
