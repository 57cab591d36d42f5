/**
 * Builds the commander program. Each command lives in ./commands/<name>.ts and exports `register`;
 * the list below names it, says how `obsync --help` shows it, and imports its module only when
 * that command runs, so `obsync --help` and `obsync validate` do not load the HTTP client, the
 * sandbox or the daemon (start-up time, measured by `npm run bench -- --only startup`).
 */
import { Command, Help } from 'commander';
import type { CliIO } from './io.js';
import { versionText } from './version.js';

import type { CommandRegistrar } from './registrar.js';

interface CommandEntry {
  name: string;
  /** Arguments as `obsync --help` lists them (a test keeps it equal to the real command's). */
  usage: string;
  summary: string;
  /** Not listed by --help nor offered by completion (a helper of the completion scripts). */
  hidden?: boolean;
  load: () => Promise<{ register: CommandRegistrar }>;
}

const commands: CommandEntry[] = [
  // one line per command module
  {
    name: 'validate',
    usage: '[options] [paths...]',
    summary: 'check manifests offline: schema, references between documents, ${env:}/${file:} interpolation',
    load: () => import('./jitless.js').then(() => import('./commands/validate.js')),
  },
  {
    name: 'lint',
    usage: '[options] [paths...]',
    summary: 'check the policy rules offline: built-in rules, Policy manifests (CEL), waivers (text, json, github, sarif)',
    load: () => import('./jitless.js').then(() => import('./commands/lint.js')),
  },
  {
    name: 'test',
    usage: '[options] [paths...]',
    summary: 'run the AlertTest files offline with the checker the backtests use: no target, no credential (text, json, github)',
    load: () => import('./jitless.js').then(() => import('./commands/test.js')),
  },
  {
    name: 'plan',
    usage: '[options] [paths...]',
    summary: 'show the changes apply would make (reads the service, writes nothing)',
    load: () => import('./commands/plan.js'),
  },
  {
    name: 'apply',
    usage: '[options] [paths...]',
    summary: 'make the service match the manifests (or apply a saved plan)',
    load: () => import('./commands/apply.js'),
  },
  {
    name: 'run',
    usage: '[options] [paths...]',
    summary:
      'reconcile continuously: at start-up, on a schedule and when manifests change; serves the status page ' +
      '(/), /api/status, /api/events, /livez /readyz /metrics',
    load: () => import('./commands/run.js'),
  },
  {
    name: 'export',
    usage: '[options]',
    summary: 'write the live objects of a target as manifests (secrets as ${env:} placeholders); --adopt: obsync owns them',
    load: () => import('./commands/export.js'),
  },
  {
    name: 'pull',
    usage: '[options] [paths...]',
    summary: 'bring the manifests up to date with the live objects (edits made in the UI), editing the files in place',
    load: () => import('./commands/pull.js'),
  },
  {
    name: 'import',
    usage: '[options] <address> <id>',
    summary: 'adopt one live object by id: obsync owns it under Kind/name (a manifest must declare it)',
    load: () => import('./commands/import.js'),
  },
  {
    name: 'sandbox',
    usage: '[options]',
    summary: 'run the simulator of both API variants (no account needed)',
    load: () => import('./commands/sandbox.js'),
  },
  { name: 'keys', usage: '', summary: 'API keys of the organization (hosted variant)', load: () => import('./commands/keys.js') },
  {
    name: 'query',
    usage: '[options]',
    summary: 'query chart series from a source (self-hosted variant)',
    load: () => import('./commands/query.js'),
  },
  {
    name: 'search',
    usage: '[options]',
    summary: 'the rows of a source, paged by the search cursor (self-hosted variant)',
    load: () => import('./commands/search.js'),
  },
  {
    name: 'schema',
    usage: '[options]',
    summary:
      'print the JSON Schema (draft-07) of every manifest kind (Dashboard, Alert, Pipe, Source, Webhook, ' +
      'SavedSearch, Connection, Role, TeamMember, TeamSettings, PipeSshKey) and of obsync.yaml',
    load: () => import('./commands/schema.js'),
  },
  {
    name: 'state',
    usage: '',
    summary: 'inspect and manage what obsync owns (list, show, rm, mv, migrate) and the replicas sharing it (replicas)',
    load: () => import('./commands/state.js'),
  },
  {
    name: 'init',
    usage: '[dir]',
    summary: 'start a project: obsync.yaml (embedded sandbox target), an example manifest and the editor schema',
    load: () => import('./commands/init.js'),
  },
  {
    name: 'version',
    usage: '',
    summary: 'print the versions of obsync and Node.js, and the platform',
    load: () => import('./commands/version.js'),
  },
  {
    name: 'completion',
    usage: '<shell>',
    summary: 'print a shell completion script (bash, zsh or fish)',
    load: () => import('./commands/completion.js'),
  },
  {
    name: '__targets',
    usage: '[words...]',
    summary: 'target names for shell completion (used by the completion scripts)',
    hidden: true,
    load: () => import('./commands/complete-targets.js'),
  },
];

export const COMMAND_NAMES: readonly string[] = commands.map((c) => c.name);

/** The program's own options that take a value (`obsync --dotenv FILE plan`): the value is not a command. */
const PROGRAM_VALUE_OPTIONS: readonly string[] = ['--dotenv'];

/** Which command modules `args` needs: the one it runs (or asks help for); every one for `completion`. */
export function commandsFor(args: readonly string[]): readonly string[] {
  const words = args.filter((a, i) => !a.startsWith('-') && !PROGRAM_VALUE_OPTIONS.includes(args[i - 1] ?? ''));
  const [first, second] = words;
  if (first === 'completion') return COMMAND_NAMES;
  const wanted = first === 'help' ? second : first;
  return wanted !== undefined && COMMAND_NAMES.includes(wanted) ? [wanted] : [];
}

/** The program for `args` (the words after `obsync`): the commands it uses are loaded, the others are listed for help. */
export function buildProgram(io: CliIO, args: readonly string[]): Promise<Command> {
  return programWith(io, new Set(commandsFor(args)));
}

/** Every command registered for real (tests, completion). */
export function buildFullProgram(io: CliIO): Promise<Command> {
  return programWith(io, new Set(COMMAND_NAMES));
}

async function programWith(io: CliIO, load: ReadonlySet<string>): Promise<Command> {
  const program = new TracedCommand(io, 'obsync')
    .description('GitOps reconciler for observability configuration: dashboards, alerts and pipe settings kept in Git')
    .version(versionText(), '-V, --version', 'print the versions of obsync and Node.js, and the platform')
    .option('--no-color', 'no colour in the output or the logs (also: NO_COLOR=1)')
    // Not --env-file: Node 20 takes that flag for itself wherever it appears on the command line.
    .option(
      '--dotenv <file>',
      'read variables from this file instead of .env beside obsync.yaml and ./.env (variables already set in the environment win)',
    )
    .exitOverride()
    .configureHelp({ showGlobalOptions: true, subcommandTerm: (cmd) => stubTerms.get(cmd) ?? new Help().subcommandTerm(cmd) })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .hook('preAction', async (root, action) => {
      const opts = root.opts<{ color?: boolean; dotenv?: string }>();
      if (opts.color === false) io.color = false;
      const [{ withEnvFile }, { configInUse }, { registerImplicitCredentials }] = await Promise.all([
        import('./env-file.js'),
        import('./config-path.js'),
        import('./implicit-credentials.js'),
      ]);
      const config = configInUse(io.cwd, action.args, action.opts<{ config?: string }>().config);
      io.env = withEnvFile(io.env, io.cwd, opts.dotenv, config);
      registerImplicitCredentials(io.env);
      if (telemetryAsked(io.env)) await (await import('./cli-telemetry.js')).startCliTelemetry(io);
    });
  const stubTerms = new Map<Command, string>();
  for (const entry of commands) {
    if (load.has(entry.name)) {
      const { register } = await entry.load();
      register(program, io);
    } else {
      const stub = program.command(entry.name, { hidden: entry.hidden === true }).description(entry.summary);
      stubTerms.set(stub, [entry.name, entry.usage].filter(Boolean).join(' '));
    }
  }
  pointToHelp(program, []);
  return program;
}

/** An OTLP endpoint variable is set: only then is src/telemetry loaded (it decides whether it is on). */
function telemetryAsked(env: CliIO['env']): boolean {
  return Object.keys(env).some((key) => key.startsWith('OTEL_EXPORTER_OTLP_') && key.endsWith('ENDPOINT') && env[key] !== '');
}

/** Commands whose actions run inside the command's span when telemetry is on (commander builds subcommands with createCommand). */
class TracedCommand extends Command {
  constructor(
    private readonly io: CliIO,
    name?: string,
  ) {
    super(name);
  }

  override createCommand(name?: string): Command {
    return new TracedCommand(this.io, name);
  }

  override action(fn: Parameters<Command['action']>[0]): this {
    const io = this.io;
    return super.action(async (...args: unknown[]) => {
      const telemetry = io.telemetry;
      if (telemetry?.enabled !== true) return fn.apply(this, args);
      const { tracedCommand } = await import('./cli-telemetry.js');
      await tracedCommand(telemetry, this, () => fn.apply(this, args));
    });
  }
}

/** After a usage error (a bad flag value, an unknown option): one line naming the command's help, not the whole help. */
function pointToHelp(cmd: Command, path: readonly string[]): void {
  cmd.showHelpAfterError(`(see 'obsync ${[...path, '--help'].join(' ')}')`);
  for (const sub of cmd.commands) pointToHelp(sub, [...path, sub.name()]);
}
