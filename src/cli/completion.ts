/**
 * Shell completion scripts generated from the commander program, so every command and option
 * (and the values of options with choices) completes without a hand-kept list. Paths and free
 * values fall back to the shell's file completion.
 */
import type { Command, Option } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface FlagInfo {
  names: string[];
  description: string;
  takesValue: boolean;
  choices: readonly string[];
  /** Values asked from obsync itself when completing (`--target`: the targets of obsync.yaml). */
  dynamic?: 'targets';
}

/** The hidden command that prints the target names (src/cli/commands/complete-targets.ts). */
const TARGETS_COMMAND = '__targets';

interface CommandInfo {
  /** Words after `obsync`, e.g. `keys create`; '' for the program itself. */
  path: string;
  subcommands: { name: string; description: string }[];
  flags: FlagInfo[];
  /** Choices of the first positional argument, when it has any. */
  argChoices: readonly string[];
}

const HELP_FLAG: FlagInfo = { names: ['-h', '--help'], description: 'display help', takesValue: false, choices: [] };

function flagInfo(o: Option): FlagInfo {
  return {
    names: [o.short, o.long].filter((n): n is string => typeof n === 'string'),
    description: o.description,
    takesValue: o.required || o.optional,
    choices: o.argChoices ?? [],
    ...(o.long === '--target' ? { dynamic: 'targets' as const } : {}),
  };
}

/** Every command of the tree; the program's own flags (but --version) are offered everywhere, as commander accepts them. */
function collect(cmd: Command, path: string, globals: FlagInfo[], out: CommandInfo[]): CommandInfo[] {
  const visible = cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help' || cmd.commands.includes(c));
  const subcommands = visible.map((c) => ({ name: c.name(), description: c.description() }));
  if (path === '') subcommands.push({ name: 'help', description: 'display help for a command' });
  const own = cmd.options.filter((o) => !o.hidden).map(flagInfo);
  out.push({
    path,
    subcommands,
    flags: [...own, ...(path === '' ? [] : globals), HELP_FLAG],
    argChoices: cmd.registeredArguments[0]?.argChoices ?? [],
  });
  const inherited = path === '' ? own.filter((f) => !f.names.includes('--version')) : globals;
  for (const sub of visible.filter((c) => cmd.commands.includes(c)))
    collect(sub, path === '' ? sub.name() : `${path} ${sub.name()}`, inherited, out);
  return out;
}

export function completionScript(program: Command, shell: Shell): string {
  const commands = collect(program, '', [], []);
  if (shell === 'bash') return bashScript(commands);
  if (shell === 'zsh') return zshScript(commands);
  return fishScript(commands);
}

/** Words safe to put unquoted in a shell word list (command and option names, choices). */
function words(list: readonly string[]): string {
  return list.filter((w) => /^[A-Za-z0-9_.:/=+-]+$/.test(w)).join(' ');
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function pathCases(commands: CommandInfo[]): string {
  return commands
    .filter((c) => c.path !== '')
    .map((c) => `"${c.path}"`)
    .join('|');
}

function bashScript(commands: CommandInfo[]): string {
  const lines = [
    '# obsync completion for bash. Load it with: source <(obsync completion bash)',
    '_obsync() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  local cmdpath="" i candidate',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    candidate="${cmdpath:+$cmdpath }${COMP_WORDS[i]}"',
    '    case "$candidate" in',
    `      ${pathCases(commands)}) cmdpath="$candidate" ;;`,
    '    esac',
    '  done',
    '  local subcommands="" flags="" choices=""',
    '  case "$cmdpath" in',
  ];
  for (const c of commands) {
    lines.push(`    "${c.path}")`);
    lines.push(`      subcommands="${words(c.subcommands.map((s) => s.name))}"`);
    lines.push(`      flags="${words(c.flags.flatMap((f) => f.names))}"`);
    lines.push(`      choices="${words(c.argChoices)}"`);
    const valued = c.flags.filter((f) => f.takesValue);
    if (valued.length > 0) {
      lines.push('      case "$prev" in');
      for (const f of valued) {
        const reply =
          f.dynamic === 'targets'
            ? `COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" ${TARGETS_COMMAND} -- "\${COMP_WORDS[@]}" 2>/dev/null)" -- "$cur"))`
            : f.choices.length > 0
              ? `COMPREPLY=($(compgen -W "${words(f.choices)}" -- "$cur"))`
              : 'COMPREPLY=()';
        lines.push(`        ${f.names.join('|')}) ${reply}; return ;;`);
      }
      lines.push('      esac');
    }
    lines.push('      ;;');
  }
  lines.push(
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$flags" -- "$cur"))',
    '  else',
    '    COMPREPLY=($(compgen -W "$subcommands $choices" -- "$cur"))',
    '  fi',
    '}',
    'complete -o default -F _obsync obsync',
    '',
  );
  return lines.join('\n');
}

/** `_describe` entries: `name:description`, with colons in the name escaped. */
function describeEntries(entries: { name: string; description: string }[]): string {
  return entries.map((e) => singleQuoted(`${e.name.replace(/:/g, '\\:')}:${e.description}`)).join(' ');
}

function zshScript(commands: CommandInfo[]): string {
  const lines = [
    '#compdef obsync',
    '# obsync completion for zsh. Save it as _obsync in a directory of $fpath, e.g.',
    '#   obsync completion zsh > "${fpath[1]}/_obsync"   (then start a new shell)',
    '_obsync() {',
    // No local named after a special parameter of any shell: in zsh `path` is $PATH as an array.
    '  local cmdpath="" i candidate',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    candidate="${cmdpath:+$cmdpath }${words[i]}"',
    '    case "$candidate" in',
    `      ${pathCases(commands)}) cmdpath="$candidate" ;;`,
    '    esac',
    '  done',
    '  local -a subcommands flags choices',
    '  local prev="${words[CURRENT-1]}"',
    '  case "$cmdpath" in',
  ];
  for (const c of commands) {
    lines.push(`    "${c.path}")`);
    lines.push(`      subcommands=(${describeEntries(c.subcommands)})`);
    lines.push(`      flags=(${describeEntries(c.flags.flatMap((f) => f.names.map((name) => ({ name, description: f.description }))))})`);
    lines.push(`      choices=(${words(c.argChoices)})`);
    const valued = c.flags.filter((f) => f.takesValue);
    if (valued.length > 0) {
      lines.push('      case "$prev" in');
      for (const f of valued) {
        const reply =
          f.dynamic === 'targets'
            ? `compadd -- \${(f)"$(\${words[1]} ${TARGETS_COMMAND} -- \${words[@]} 2>/dev/null)"}`
            : f.choices.length > 0
              ? `compadd -- ${words(f.choices)}`
              : '_files';
        lines.push(`        ${f.names.join('|')}) ${reply}; return ;;`);
      }
      lines.push('      esac');
    }
    lines.push('      ;;');
  }
  lines.push(
    '  esac',
    '  if [[ "${words[CURRENT]}" == -* ]]; then',
    "    _describe 'option' flags",
    '  elif (( ${#subcommands} )); then',
    "    _describe 'command' subcommands",
    '  elif (( ${#choices} )); then',
    '    compadd -- $choices',
    '  else',
    '    _files',
    '  fi',
    '}',
    // Autoloaded from $fpath the file is _obsync's body: complete now (a bare compdef would make the first Tab offer nothing).
    'if [[ "${funcstack[1]}" == _obsync ]]; then',
    '  _obsync "$@"',
    'else',
    '  compdef _obsync obsync',
    'fi',
    '',
  );
  return lines.join('\n');
}

function fishCondition(c: CommandInfo, commands: CommandInfo[]): string {
  if (c.path === '') return '__fish_use_subcommand';
  const parts = c.path.split(' ');
  const here = parts.map((p) => `__fish_seen_subcommand_from ${p}`);
  // Not inside a deeper subcommand of this one.
  const deeper = commands.filter((d) => d.path.startsWith(`${c.path} `)).map((d) => d.path.split(' ').at(-1) ?? '');
  if (deeper.length > 0) here.push(`not __fish_seen_subcommand_from ${words(deeper)}`);
  return here.join('; and ');
}

function fishScript(commands: CommandInfo[]): string {
  const lines = ['# obsync completion for fish. Save it with:', '#   obsync completion fish > ~/.config/fish/completions/obsync.fish'];
  for (const c of commands) {
    const when = `"${fishCondition(c, commands)}"`;
    for (const s of c.subcommands)
      lines.push(`complete -c obsync -n ${when} -f -a ${singleQuoted(s.name)} -d ${fishQuoted(s.description)}`);
    if (c.argChoices.length > 0) lines.push(`complete -c obsync -n ${when} -f -a ${singleQuoted(words(c.argChoices))}`);
    for (const f of c.flags) {
      const names = f.names.map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`)).join(' ');
      const value =
        f.dynamic === 'targets'
          ? ` -x -a ${singleQuoted(`(obsync ${TARGETS_COMMAND} -- (commandline -opc) 2>/dev/null)`)}`
          : f.choices.length > 0
            ? ` -x -a ${singleQuoted(words(f.choices))}`
            : f.takesValue
              ? ' -r'
              : '';
      lines.push(`complete -c obsync -n ${when} ${names}${value} -d ${fishQuoted(f.description)}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** fish single quotes: only \\ and \' are escapes. */
function fishQuoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
