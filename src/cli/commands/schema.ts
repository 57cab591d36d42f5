/**
 * `obsync schema [--out FILE] [--docs DIR]`: the draft-07 JSON Schema of every document obsync reads,
 * for editors, and its reference pages.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { documentJsonSchema } from '../../config/json-schema.js';
import { writeFileAtomically, writeFilesAtomically } from '../../manifests/atomic-write.js';
import { referencePages } from '../../manifests/schema-docs.js';
import type { CommandRegistrar } from '../registrar.js';

export const register: CommandRegistrar = (program, io) => {
  program
    .command('schema')
    .description(
      'print the JSON Schema (draft-07) of every manifest kind (Dashboard, Alert, Pipe, Source, Webhook, ' +
        'SavedSearch, Connection, Role, TeamMember, TeamSettings, PipeSshKey) and of obsync.yaml',
    )
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--docs <dir>', 'also write a Markdown reference page per kind and for obsync.yaml into this directory')
    .action((flags: { out?: string; docs?: string }) => {
      const schema = documentJsonSchema();
      const text = `${JSON.stringify(schema, null, 2)}\n`;
      if (flags.docs !== undefined) {
        const dir = resolve(io.cwd, flags.docs);
        mkdirSync(dir, { recursive: true });
        writeFilesAtomically([...referencePages(schema)].map(([file, page]) => ({ path: join(dir, file), data: page })));
        io.stderr.write(`wrote the reference pages in ${dir}\n`);
        if (flags.out === undefined) return;
      }
      if (flags.out === undefined) {
        io.stdout.write(text);
        return;
      }
      const target = resolve(io.cwd, flags.out);
      writeFileAtomically(target, text, { streams: 'write' });
      io.stderr.write(`wrote ${target}\n`);
    });
};
