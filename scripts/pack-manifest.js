// npm's prepack and postpack: the package.json packed into the tarball carries no scripts. Its
// `prepare` builds dist/ in a clone (npm ci, installs from Git), but in a tarball it would name a
// file that is not there, and npm 11 warns on every `npm install` of a package with an install
// script ("install scripts not yet covered by allowScripts"). prepack keeps the full package.json
// aside and writes the packed one; postpack puts the full one back (also at the next prepack, if
// a pack was interrupted in between).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const PACKAGE = new URL('../package.json', import.meta.url);
const KEPT = new URL('../.package.json.full', import.meta.url);

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, PACKAGE);
}

const step = process.argv[2];
if (step === 'strip') {
  restore();
  const text = readFileSync(PACKAGE, 'utf8');
  const { scripts: _scripts, ...packed } = JSON.parse(text);
  writeFileSync(KEPT, text);
  writeFileSync(PACKAGE, `${JSON.stringify(packed, null, 2)}\n`);
} else if (step === 'restore') {
  restore();
} else {
  process.stderr.write('usage: node scripts/pack-manifest.js strip|restore\n');
  process.exit(2);
}
