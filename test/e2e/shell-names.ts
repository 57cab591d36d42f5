/**
 * The special parameters of bash, zsh and fish, as the installed shells list them (plus the ones
 * that exist only inside a completion function or a zle widget, from the shells' manuals), and
 * the variable names a completion script declares and assigns.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** zshcompwid(1) and zshzle(1): defined only inside completion widgets and zle widgets. */
const ZSH_WIDGET_SPECIALS = [
  'CURRENT',
  'IPREFIX',
  'ISUFFIX',
  'PREFIX',
  'QIPREFIX',
  'QISUFFIX',
  'SUFFIX',
  'compstate',
  'words',
  'BUFFER',
  'CURSOR',
  'LBUFFER',
  'RBUFFER',
  'KEYS',
  'WIDGET',
  'NUMERIC',
  'MARK',
  'CUTBUFFER',
  'killring',
  'region_highlight',
];
/** bash(1): set only while a completion function or a bound command runs. */
const BASH_COMPLETION_SPECIALS = [
  'COMP_CWORD',
  'COMP_KEY',
  'COMP_LINE',
  'COMP_POINT',
  'COMP_TYPE',
  'COMP_WORDS',
  'COMPREPLY',
  'READLINE_LINE',
];

function lines(command: string, args: string[], env: Record<string, string>): string[] {
  const res = spawnSync(command, args, { encoding: 'utf8', env });
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.split('\n').filter(Boolean);
}

/** Every special parameter's name, lower-cased (a script must not take `PATH` or `path` in any case). */
export function specialParameters(): Set<string> {
  const home = mkdtempSync(join(tmpdir(), 'obsync-shell-names-'));
  const bare = { HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home, XDG_CACHE_HOME: home };
  try {
    const zsh = lines('zsh', ['-f', '-c', 'zmodload zsh/parameter zsh/zle 2>/dev/null; print -l ${(k)parameters[(R)*special*]}'], bare);
    // With an empty environment, what bash and fish list is what they set themselves.
    const bash = lines('bash', ['--norc', '--noprofile', '-c', 'compgen -v'], bare);
    const fish = lines('fish', ['--no-config', '-c', 'set -n'], bare);
    return new Set([...zsh, ...ZSH_WIDGET_SPECIALS, ...bash, ...BASH_COMPLETION_SPECIALS, ...fish].map((n) => n.toLowerCase()));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The names a script declares (`local`, `typeset`, `declare`, fish's `set`, loop variables), and
 * any it assigns without declaring them, but the completion results the shell reads (COMPREPLY).
 */
export function declaredNames(script: string, shell: 'bash' | 'zsh' | 'fish'): { names: string[]; undeclared: string[] } {
  // Code only: comments and the text inside quotes (descriptions, word lists) hold no declarations.
  const code = script
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    // fish's single quotes take \' and \\ escapes; bash's and zsh's take none, so a quote in a
    // description is written '\'' (close, an escaped quote, reopen): the escape outside is skipped too.
    .replace(shell === 'fish' ? /'(?:[^'\\]|\\.)*'/g : /'[^']*'|\\./g, "''")
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = new Set<string>();
  const declare = (list: string) => {
    for (const word of list.trim().split(/\s+/)) if (!word.startsWith('-') && word !== '') names.add(word.replace(/[=[].*$/, ''));
  };
  for (const m of code.matchAll(/\b(?:local|typeset|declare|readonly)\s+([^;\n]*)/g)) declare(m[1] ?? '');
  for (const m of code.matchAll(/\bset\s+(?:-[a-zA-Z]+\s+)*([A-Za-z_][A-Za-z0-9_]*)/g)) if (shell === 'fish') names.add(m[1] ?? '');
  for (const m of code.matchAll(/\bfor\s+(?:\(\(\s*)?([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(m[1] ?? '');
  const assigned = [...code.matchAll(/(?:^|[\s;(])([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/gm)].map((m) => m[1] ?? '');
  const undeclared = [...new Set(assigned)].filter((n) => !names.has(n) && n !== 'COMPREPLY');
  return { names: [...names], undeclared };
}
