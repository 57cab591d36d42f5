/**
 * The bench compiled for the smoke test: each TypeScript file of src/ (not its tests) and bench/
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

export function transpileBench(root: string, outDir: string): number {
  let count = 0;
  for (const top of ['src', 'bench']) {
    for (const entry of readdirSync(join(root, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts') || entry.name.endsWith('.d.ts')) continue;
      const file = join(entry.parentPath, entry.name);
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
  }
  return count;
}
