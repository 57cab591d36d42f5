/**
 * The bench compiled for the smoke test: each TypeScript file of src/ (not its tests) and bench/,
 * and the test support the bench imports (PostgreSQL for the shards measure),
 * transpiled alone (`ts.transpileModule`, as isolatedModules allows), into `outDir` with the layout
 * `tsc -p tsconfig.bench.json` gives. Types are not checked here — `npm run typecheck` checks
 * bench/ with everything else — so a compile takes a second instead of half a minute of tsc.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  sourceMap: false,
};

/** Test support the bench also uses (the shards measure starts its own PostgreSQL). */
const SUPPORT = ['test/support/postgres-instance.ts'];

export function transpileBench(root: string, outDir: string): number {
  let count = 0;
  const sources = ['src', 'bench'].flatMap((top) =>
    readdirSync(join(root, top), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
      .map((e) => join(e.parentPath, e.name)),
  );
  for (const file of [...sources, ...SUPPORT.map((f) => join(root, f))]) {
    const out = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: OPTIONS,
      fileName: file,
      reportDiagnostics: true,
    });
    if (diagnostics && diagnostics.length > 0)
      throw new Error(`${file}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    count += 1;
  }
  return count;
}
