/** `obsync schema [--out FILE]`: the draft-07 JSON Schema of every document obsync reads, for editors. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { documentJsonSchema } from '../../manifests/json-schema.js';
import type { CommandRegistrar } from '../program.js';

export const register: CommandRegistrar = (program, io) => {
  program
    .command('schema')
    .description('print the JSON Schema (draft-07) of Dashboard, Alert, Pipe manifests and obsync.yaml')
    .option('--out <file>', 'write to a file instead of stdout')
    .action((flags: { out?: string }) => {
      const text = `${JSON.stringify(documentJsonSchema(), null, 2)}\n`;
      if (flags.out === undefined) {
        io.stdout.write(text);
        return;
      }
      const target = resolve(io.cwd, flags.out);
      writeFileSync(target, text);
      io.stderr.write(`wrote ${target}\n`);
    });
};
