/**
 * `obsync run` as a child process for the visibility tests: it listens on port 0 and the test reads
 * the address it bound from its stderr line; its JSON log lines are parsed as they come. Also a
 * loopback notification receiver (port 0) that records every POST.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnCli } from './cli.js';
import { daemonUrl, until } from './wait.js';

export interface RunningDaemon {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** The JSON log lines so far. */
  lines: () => Record<string, unknown>[];
  /** Lines of this event so far. */
  events: (name: string) => Record<string, unknown>[];
  stop: () => Promise<number | null>;
}

/** `opts.previews`: the daemon draws its status-page pictures (test/support/cli.ts spawnCli). */
export async function startDaemon(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  opts: { previews?: boolean } = {},
): Promise<RunningDaemon> {
  const child = spawnCli(['run', '--listen', '127.0.0.1:0', ...args], { cwd, env, ...opts });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const lines = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const url = await until(
    'the daemon to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`obsync run exited (${child.exitCode}):\n${output}`);
      return daemonUrl(output);
    },
    { context: () => output },
  );
  return {
    child,
    url,
    output: () => output,
    lines,
    events: (name) => lines().filter((l) => l.event === name),
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return new Promise((r) => child.once('exit', (code) => r(code)));
    },
  };
}

/** A POST the receiver answered 200: its path, headers and body as sent. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  raw: string;
}

export interface Receiver {
  url: string;
  /** The receiver's origin (http://127.0.0.1:PORT), for sinks on other paths. */
  origin: string;
  bodies: unknown[];
  requests: ReceivedRequest[];
  /** Answer the next requests with these statuses (then 200). */
  failNext: (statuses: number[]) => void;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const bodies: unknown[] = [];
  const requests: ReceivedRequest[] = [];
  const script: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = script.shift() ?? 200;
      const raw = Buffer.concat(chunks).toString('utf8');
      if (status === 200) {
        bodies.push(JSON.parse(raw) as unknown);
        requests.push({ path: req.url ?? '', headers: req.headers as Record<string, string>, raw });
      }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/hook/secret-part-of-the-hook-url`,
    origin,
    bodies,
    requests,
    failNext: (statuses) => script.push(...statuses),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
