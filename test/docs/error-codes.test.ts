/** docs/errors.md lists exactly the error codes obsync's source raises (found in the source, not kept by hand). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');

/** Codes as the source gives them: `new ObsyncError('X'`, `super('X'`, `code: 'X'`, `code = 'X'`, `code ?? 'X'`. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  for (const entry of readdirSync(join(REPO, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    if (entry.parentPath.includes(`${join('src', 'sandbox')}`)) continue; // the simulated server's own codes
    const source = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of source.matchAll(/(?:ObsyncError\(|super\(|code:\s*|code\s*=\s*|code \?\? )'([A-Z][A-Z_]+)'/g)) codes.add(m[1] ?? '');
  }
  return codes;
}

it('documents every error code the source raises, and no other', () => {
  const page = readFileSync(join(REPO, 'docs/errors.md'), 'utf8');
  const documented = new Set([...page.matchAll(/^\| ((?:`[A-Z_]+`(?:, )?)+) \|/gm)].flatMap((m) => (m[1] ?? '').match(/[A-Z_]+/g) ?? []));
  const raised = codesInSource();
  expect(raised.size).toBeGreaterThan(40);
  expect([...raised].filter((c) => !documented.has(c)).sort()).toEqual([]);
  expect([...documented].filter((c) => !raised.has(c)).sort()).toEqual([]);
});
