/** `obsync completion bash|zsh|fish`: a completion script derived from the program's commands and options. */
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import type { CommandRegistrar } from '../registrar.js';

export const register: CommandRegistrar = (program: Command, io) => {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(
      new Argument(
        '<shell>',
        'bash: source <(obsync completion bash); zsh: obsync completion zsh > "${fpath[1]}/_obsync"; fish: ' +
          'obsync completion fish > ~/.config/fish/completions/obsync.fish',
      ).choices(SHELLS),
    )
    .action((shell: Shell) => {
      io.stdout.write(completionScript(program, shell));
    });
};
