/**
 * The names editors give the files they keep beside the one being edited: locks, swap files,
 * autosaves, backups and safe-write copies. None is a manifest, and some are links that never
 * resolve — emacs locks a file with `.#d.yaml -> user@host.1234:1700000000` — so discovery, which
 * fails closed on a broken link, would block every apply while someone edits. They are skipped by
 * name, explicitly; every other broken link still blocks.
 *
 * - emacs: `.#name` (lock, a dangling link), `#name#` (autosave), `name~` (backup; also vim, nano, gedit);
 * - vim and nano: `.name.swp` (then `.swo`, `.swn`, … down to `.swa`), vim's `.swx` probe, and
 *   `4913` (then 4913 + 123·n), the file vim creates to test that a folder is writable;
 * - JetBrains IDEs' safe write: `name___jb_tmp___`, `name___jb_old___`;
 * - Kate: `.name.kate-swp`; GNOME (gedit): `.goutputstream-XXXXXX`.
 */
const SCRATCH: readonly RegExp[] = [
  /^\.#/,
  /^#.*#$/,
  /~$/,
  /^\..*\.sw[a-px]$/,
  /\.swx$/,
  /___jb_(tmp|old)___$/,
  /^\..*\.kate-swp$/,
  /^\.goutputstream-/,
];

const VIM_PROBE_FIRST = 4913;
const VIM_PROBE_STEP = 123;

/** Whether a directory entry's name is one an editor gives its lock, swap, autosave or backup files. */
export function isEditorScratch(name: string): boolean {
  if (SCRATCH.some((re) => re.test(name))) return true;
  if (!/^\d{4,6}$/.test(name)) return false;
  const n = Number(name);
  return n >= VIM_PROBE_FIRST && (n - VIM_PROBE_FIRST) % VIM_PROBE_STEP === 0;
}
