/**
 * `obsync init [DIR]`: a new project whose `validate`, `plan` and `apply` work at once against
 * the embedded sandbox: obsync.yaml, an example manifest, the JSON Schema the editor modelines
 * point at, and a .gitignore that keeps the state and .env out of Git. Never overwrites: when any
 * of the project files exists, nothing is written (an existing .gitignore only gains the lines it
 * lacks). The next commands are printed the way they run here (see ./invocation.ts).
 */
import { lstatSync, mkdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { documentJsonSchema } from '../../config/json-schema.js';
import { writeFileAtomically, writeFilesAtomically } from '../../manifests/atomic-write.js';
import { isWithin, MAX_FILE_BYTES, readRegularBytesIfPresent, unreadableReason } from '../../manifests/files.js';
import { obsyncInvocation, shellWord } from '../invocation.js';
import type { CommandRegistrar } from '../registrar.js';

export const INIT_CONFIG = `# yaml-language-server: $schema=./obsync.schema.json
# obsync configuration. Paths are relative to this file; \`obsync schema\` documents every key.
apiVersion: obsync/v1
kind: Config
manifests: [manifests]
state: {backend: file, path: .obsync/state}   # what obsync owns (.gitignore keeps .obsync/ out of Git)
defaults:
  target: sandbox
  schedule: "*/5 * * * *"   # obsync run: cron, UTC
  prune: false              # deleting owned objects that are no longer declared needs --prune
targets:
  # The embedded sandbox: an in-process simulator of the service (data under .obsync/state/embedded/),
  # so plan and apply work at once, without an account.
  - name: sandbox
    variant: sandbox
  # A hosted service (HTTP Basic key). Credentials come from the environment:
  # OBSYNC_KEY_ID and OBSYNC_KEY_SECRET (or OBSYNC_KEY_SECRET_FILE). Use it with --target prod.
  # - name: prod
  #   variant: hosted
  #   baseUrl: https://api.example.com
  #   organizationId: "\${env:OBSYNC_ORG_ID}"
  #   serviceId: "\${env:OBSYNC_SERVICE_ID}"
  # A self-hosted API server (Bearer personal API key from OBSYNC_API_KEY or OBSYNC_API_KEY_FILE).
  # - name: staging
  #   variant: self-hosted
  #   baseUrl: http://obs-api.internal:8000
`;

export const INIT_EXAMPLE = `# yaml-language-server: $schema=../obsync.schema.json
# An example: a dashboard with one tile, and an alert on that tile. Objects refer to each other
# by name (metadata.name, tile keys, source and webhook names), never by server id.
apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: example-service
  labels: {team: example}
spec:
  name: Example service
  tags: [example]
  tiles:
    - key: p95
      name: p95 latency
      x: 0
      y: 0
      w: 12
      h: 4
      config:
        displayType: line
        source: Traces
        select:
          - {aggFn: quantile, level: 0.95, valueExpression: Duration}
---
apiVersion: obsync/v1
kind: Alert
metadata:
  name: example-p95-high
spec:
  dashboard: example-service
  tile: p95
  interval: 5m
  threshold: 800
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
  name: Example p95 above 800 ms
`;

/** What init adds to .gitignore: obsync's state (and the embedded sandbox's data), and the file of secrets obsync reads. */
export const INIT_GITIGNORE: readonly { line: string; why: string }[] = [
  { line: '.obsync/', why: "# obsync's state (what it owns, backups, locks) and the embedded sandbox's data" },
  { line: '.env', why: '# variables obsync reads at start-up (secrets for ${env:...}); never commit them' },
];

export const register: CommandRegistrar = (program, io) => {
  program
    .command('init')
    .description('start a project: obsync.yaml (embedded sandbox target), an example manifest and the editor schema')
    .argument('[dir]', 'project directory (created when missing)', '.')
    .action((dir: string) => {
      const root = resolve(io.cwd, dir);
      const files: [string, string][] = [
        [join(root, 'obsync.yaml'), INIT_CONFIG],
        [join(root, 'manifests', 'example.yaml'), INIT_EXAMPLE],
        [join(root, 'obsync.schema.json'), `${JSON.stringify(documentJsonSchema(), null, 2)}\n`],
      ];
      const shown = (p: string) => relative(io.cwd, p) || p;
      // A link counts as there, whether or not it leads anywhere: init never writes through one.
      const existing = files.filter(([path]) => lstatSync(path, { throwIfNoEntry: false })).map(([path]) => shown(path));
      if (existing.length > 0)
        throw new ConfigError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; obsync init never overwrites`, {
          hint: 'run it in an empty directory, or give a new one: obsync init DIR',
        });
      // Read before anything is written: a .gitignore that cannot be read, or that links out of the project, stops init with nothing
      // created.
      const ignoreBefore = readGitignore(join(root, '.gitignore'), shown(join(root, '.gitignore')));
      const ignore = gitignoreFile(root, shown);
      mkdirSync(join(root, 'manifests'), { recursive: true });
      writeFilesAtomically(
        files.map(([path, data]) => ({ path, data })),
        { existing: 'create', within: root },
      );
      const ignored = updateGitignore(ignore, ignoreBefore, root);
      const run = obsyncInvocation(io.env);
      io.stdout.write(
        [
          ...files.map(([path]) => `created ${shown(path)}`),
          ...(ignored === 'unchanged' ? [] : [`${ignored} ${shown(ignore)}`]),
          '',
          'Next:',
          ...(dir === '.' ? [] : [`  cd ${shellWord(shown(root))}`]),
          `  ${run.command} validate     # offline checks`,
          `  ${run.command} plan         # against the embedded sandbox`,
          `  ${run.command} apply`,
          ...(run.onPath
            ? []
            : [
                '',
                `(${run.shadowed ? 'the obsync on your PATH is another installation' : 'obsync is not on your PATH'}, ` +
                  `so the commands name this one in full; the README's Install section puts it on PATH)`,
              ]),
          '',
        ].join('\n'),
      );
    });
};

/**
 * The file init adds its lines to: the project's .gitignore, or, when that is a symbolic link, the
 * file it leads to — refused when that is outside the project (init would write into another
 * repository, or a file of the user's home) or nowhere.
 */
function gitignoreFile(root: string, shown: (p: string) => string): string {
  const path = join(root, '.gitignore');
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return path;
  const target = readlinkSync(path);
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    throw new ConfigError(
      `${shown(path)} is a symbolic link to ${target}, which cannot be followed (${unreadableReason(err)}); nothing was created`,
      {
        hint: 'remove the link or point it at a file in the project, then run obsync init again',
      },
    );
  }
  if (!isWithin(realpathSync(root), real))
    throw new ConfigError(
      `${shown(path)} is a symbolic link to ${target}${real === target ? '' : ` (${real})`}, which is ` +
        `outside the project ${root}: init does not write through it; nothing was created`,
      {
        hint:
          `add the lines yourself (${INIT_GITIGNORE.map((e) => e.line).join(', ')}), or replace the link with a ` +
          `file, and run obsync init again`,
      },
    );
  return real;
}

/** The text of .gitignore, undefined when there is none. */
function readGitignore(path: string, shown: string): string | undefined {
  try {
    return readRegularBytesIfPresent(path, MAX_FILE_BYTES)?.toString('utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${shown}: ${unreadableReason(err)}; nothing was created`, {
      hint: 'make .gitignore a regular file of at most 1 MiB, or run obsync init in another directory',
    });
  }
}

/** Adds the lines of INIT_GITIGNORE that `path` lacks (creating it when missing); `before` is its text. */
function updateGitignore(path: string, before: string | undefined, root: string): 'created' | 'updated' | 'unchanged' {
  const present = new Set((before ?? '').split(/\r?\n/).map((l) => l.trim().replace(/^\//, '')));
  const missing = INIT_GITIGNORE.filter((e) => !present.has(e.line) && !present.has(e.line.replace(/\/$/, '')));
  if (missing.length === 0) return 'unchanged';
  const lead = before === undefined || before === '' ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  writeFileAtomically(path, `${before ?? ''}${lead}${missing.map((e) => `${e.why}\n${e.line}\n`).join('')}`, { within: root });
  return before === undefined ? 'created' : 'updated';
}
