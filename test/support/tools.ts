/**
 * Real tools some tests drive, from Debian's packages (`.ci/run` installs them when missing). In
 * CI a missing tool fails the tests that need it; on a developer's machine those tests are
 * skipped, saying which package to install. (Chromium has its own, test/support/browser.ts.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

export interface Tool {
  /** What the tests use, as the message names it. */
  name: string;
  /** How to get it. */
  install: string;
  present(): boolean;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/** Where Debian's golang-*-dev packages put their sources (GOPATH mode, offline). */
export const GOCODE = '/usr/share/gocode';

export const TOOLS = {
  go: { name: 'go', install: "Debian's golang-go package", present: () => onPath('go') },
  terraformJson: {
    name: 'terraform-json',
    install: "Debian's golang-github-hashicorp-terraform-json-dev package",
    present: () => existsSync(join(GOCODE, 'src/github.com/hashicorp/terraform-json/plan.go')),
  },
  jq: { name: 'jq', install: "Debian's jq package", present: () => onPath('jq') },
  promtool: { name: 'promtool', install: "Debian's prometheus package", present: () => onPath('promtool') },
} satisfies Record<string, Tool>;

/**
 * Why tests needing these tools cannot run here, or null when they can. In CI a missing tool is
 * an error thrown here (the file fails), never a skip. Off CI the reason is also printed, so a
 * skip is never silent.
 */
export function missingTools(...tools: readonly Tool[]): string | null {
  const missing = tools.filter((t) => !t.present());
  if (missing.length === 0) return null;
  const why = `missing ${missing.map((t) => `${t.name} (${t.install})`).join(', ')}`;
  if (inCi) throw new Error(`these tests need ${why}; .ci/run installs them`);
  console.warn(`skipped: ${why}`);
  return why;
}
