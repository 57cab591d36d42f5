/** `obsync sandbox`: the simulator of both API variants as a standalone loopback server. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { SANDBOX_DEFAULTS } from '../../sandbox/defaults.js';
import { parseFaultSpec, startSandbox, type FaultSpec, type TeamFlag } from '../../sandbox/index.js';
import { ConfigError } from '../../core/errors.js';
import type { CliIO } from '../io.js';
import type { CommandRegistrar } from '../registrar.js';

interface SandboxFlags {
  otlpPort?: number;
  port: number;
  host: string;
  data?: string;
  seed: 'demo' | 'none';
  edition: 'oss' | 'enterprise';
  apiKey: string;
  keyId: string;
  keySecret: string;
  orgId: string;
  serviceId: string;
  rateLimit: 'real' | 'off';
  faults?: FaultSpec;
  hostedTeamFlag?: TeamFlag[];
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number (0 = any free port)');
  return n;
}

function faults(value: string): FaultSpec {
  try {
    return parseFaultSpec(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Why the sandbox cannot listen where it was asked, and how to choose another place. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new ConfigError(`port ${port} on ${host} is already in use (another sandbox, or another program, listens there)`, {
      hint:
        `choose another with --port N (e.g. --port ${port === 65535 ? port - 1 : port + 1}), or --port 0 for ` +
        `any free port (the address is printed); then point baseUrl at it`,
      cause: err,
    });
  if (code === 'EACCES')
    return new ConfigError(`not allowed to listen on ${where} (ports below 1024 need privileges)`, {
      hint: 'choose a port of 1024 or above with --port N, or --port 0 for any free port',
      cause: err,
    });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new ConfigError(`cannot listen on ${where}: ${host} is not an address of this machine`, {
      hint: 'give --host 127.0.0.1 (the default) or another local address',
      cause: err,
    });
  return err;
}

export const register: CommandRegistrar = (program: Command, io: CliIO) => {
  program
    .command('sandbox')
    .description('run the simulator of both API variants (no account needed)')
    .option('--port <port>', 'port (0 = any free port)', portNumber, SANDBOX_DEFAULTS.port)
    .option('--host <host>', 'address to bind', SANDBOX_DEFAULTS.host)
    .option('--otlp-port <port>', 'also receive OTLP/HTTP (traces, metrics, logs) on this port (0 = any free port)', portNumber)
    .option('--data <dir>', 'persist the stores as JSON files in this directory')
    .addOption(new Option('--seed <seed>', 'initial data').choices(['demo', 'none']).default('demo'))
    .addOption(
      new Option('--edition <edition>', 'self-hosted server: oss (open-source HyperDX) or enterprise (ClickStack with RBAC: roles)')
        .choices(['oss', 'enterprise'])
        .default('oss'),
    )
    .option('--api-key <key>', 'accepted Bearer key (self-hosted)', SANDBOX_DEFAULTS.apiKey)
    .option('--key-id <id>', 'accepted Basic key id (hosted)', SANDBOX_DEFAULTS.keyId)
    .option('--key-secret <secret>', 'accepted Basic key secret (hosted)', SANDBOX_DEFAULTS.keySecret)
    .option('--org-id <uuid>', 'organization id (hosted)', SANDBOX_DEFAULTS.organizationId)
    .option('--service-id <uuid>', 'service id (hosted)', SANDBOX_DEFAULTS.serviceId)
    .addOption(new Option('--rate-limit <mode>', 'enforce the published rate limits').choices(['real', 'off']).default('real'))
    .addOption(
      new Option(
        '--hosted-team-flag <flag...>',
        "turn on a feature flag of the hosted service's team (alertInterval30s: 30s alerts)",
      ).choices(['alertInterval30s']),
    )
    .option(
      '--faults <spec>',
      'inject faults, e.g. latency=50,error5xx=0.1,burst429=3,resetBefore=0.05,resetAfter=0.05,idle424=0.2,listOmit=0.3,seed=7',
      faults,
    )
    .action(async (flags: SandboxFlags) => {
      const handle = await startSandbox({
        host: flags.host,
        port: flags.port,
        dataDir: flags.data,
        seed: flags.seed,
        edition: flags.edition,
        apiKey: flags.apiKey,
        keyId: flags.keyId,
        keySecret: flags.keySecret,
        organizationId: flags.orgId,
        serviceId: flags.serviceId,
        rateLimit: flags.rateLimit,
        ...(flags.faults ? { faults: flags.faults } : {}),
        ...(flags.otlpPort !== undefined ? { otlpPort: flags.otlpPort } : {}),
        ...(flags.hostedTeamFlag ? { hostedTeamFlags: flags.hostedTeamFlag } : {}),
      }).catch((err: unknown) => {
        throw listenError(err, flags.host, flags.port);
      });
      const c = handle.credentials;
      io.stdout.write(
        [
          `obsync sandbox listening on ${handle.url}${flags.data ? ` (data in ${flags.data})` : ' (in memory)'}`,
          `  self-hosted (${flags.edition}): ${handle.url}/api/v2/...   Authorization: Bearer ${c.apiKey}`,
          `  hosted:      ` +
            `${handle.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/clickstack/...  (and ` +
            `.../clickpipes, /v1/organizations/${c.organizationId}/keys)`,
          `               HTTP Basic ${c.keyId}:${c.keySecret}`,
          ...(handle.otlp
            ? [`  OTLP/HTTP receiver: ${handle.otlp.url}  (OTEL_EXPORTER_OTLP_ENDPOINT; rows in otel_traces, otel_logs)`]
            : []),
          `  rate limits: ${flags.rateLimit}${flags.faults ? `; faults: ${JSON.stringify(flags.faults)}` : ''}`,
          ...(flags.hostedTeamFlag ? [`  hosted team flags: ${flags.hostedTeamFlag.join(', ')}`] : []),
          "  These are the sandbox's documented loopback credentials, not secrets. Ctrl-C stops it.",
          '',
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await handle.close();
    });
};
