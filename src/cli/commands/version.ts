/** `obsync version`: the same lines as `obsync --version`, for bug reports. */
import type { CommandRegistrar } from '../registrar.js';
import { versionText } from '../version.js';

export const register: CommandRegistrar = (program, io) => {
  program
    .command('version')
    .description('print the versions of obsync and Node.js, and the platform')
    .action(() => {
      io.stdout.write(`${versionText()}\n`);
    });
};
