/** docs/reference/cli.md: every command, argument and option, from the commander program itself (what `--help` shows). */
import type { Command } from 'commander';
import { code, generatedHeader, text } from './markdown.js';

export function cliReferencePage(program: Command): string {
  const help = program.createHelp();
  const lines = [
    generatedHeader('the command definitions (src/cli/commands/)'),
    '',
    '# Commands',
    '',
    'Every command of `obsync`, its arguments and options, as `obsync <command> --help` shows them.',
    '',
    '## Global options',
    '',
    ...options(program),
  ];
  for (const command of commandsOf(program)) {
    const name = pathOf(command);
    lines.push('', `## ${name}`, '', '```', help.commandUsage(command), '```', '');
    lines.push(text(command.description()));
    const args = help.visibleArguments(command);
    if (args.length > 0) {
      lines.push('', 'Arguments:', '');
      for (const a of args) lines.push(`- ${code(help.argumentTerm(a))}${describe(help.argumentDescription(a))}`);
    }
    const opts = options(command);
    if (opts.length > 0) lines.push('', 'Options:', '', ...opts);
  }
  return `${lines.join('\n')}\n`;

  function options(command: Command): string[] {
    return help
      .visibleOptions(command)
      .filter((o) => o.long !== '--help')
      .map((o) => `- ${code(help.optionTerm(o))}${describe(help.optionDescription(o))}`);
  }
}

function describe(description: string): string {
  return description ? ` — ${text(description)}` : '';
}

/** Every visible command below `program`, depth first, in the order `--help` lists them. */
function commandsOf(program: Command): Command[] {
  const help = program.createHelp();
  return help.visibleCommands(program).flatMap((c) => (c.name() === 'help' ? [] : [c, ...commandsOf(c)]));
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
