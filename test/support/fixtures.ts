/**
 * Expensive test fixtures shared across test files: a loopback server in vitest's main process
 * (started by test/support/global-setup.ts, on port 0) owns them, starts each on first request and
 * stops them all when the run ends. A test file reaches it through `callFixture`.
 *
 * - `postgres`: one PostgreSQL per vitest worker (files in one worker run one after another, so a
 *   file may restart its server), all made from one initdb per run.
 *
 * Another fixture is one entry in FIXTURES, e.g. one headless Chromium per worker for the status
 * page tests: `chromium: () => perWorker(async () => launch…, (b) => b.close())`, its CDP endpoint
 * answered to `callFixture('chromium', 'acquire')`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTemplate, PostgresInstance, type PgTemplate } from './postgres-instance.js';

/** A fixture's side in the main process: answers a worker's request, and stops at the end of the run. */
export interface Fixture {
  handle(action: string, worker: string, body: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** One resource per worker, made on its first request. */
function perWorker<R>(
  start: () => Promise<R>,
  stop: (r: R) => Promise<void>,
  actions: Record<string, (r: R, body: Record<string, unknown>) => Promise<unknown>>,
): Fixture {
  const started = new Map<string, Promise<R>>();
  return {
    async handle(action, worker, body) {
      let resource = started.get(worker);
      if (!resource) started.set(worker, (resource = start()));
      const act = actions[action];
      if (!act) throw new Error(`no action ${action}`);
      return act(await resource, body);
    },
    async close() {
      const all = await Promise.allSettled(started.values());
      await Promise.all(all.flatMap((r) => (r.status === 'fulfilled' ? [stop(r.value)] : [])));
    },
  };
}

function postgres(): Fixture {
  let template: PgTemplate | undefined;
  const fixture = perWorker(
    () => PostgresInstance.start((template ??= makeTemplate())),
    (pg) => pg.close(),
    {
      acquire: (pg) => Promise.resolve(pg.address),
      restart: async (pg, body) => {
        await pg.restart(typeof body.downMs === 'number' ? { downMs: body.downMs } : {});
        return pg.address;
      },
      stop: async (pg) => {
        await pg.stopServer();
        return pg.address;
      },
      start: async (pg) => {
        await pg.startServer();
        return pg.address;
      },
    },
  );
  return {
    handle: (action, worker, body) => fixture.handle(action, worker, body),
    async close() {
      await fixture.close();
      template?.close();
    },
  };
}

const FIXTURES: Record<string, () => Fixture> = { postgres };

/** The fixture server (main process): POST /<fixture>/<action>?worker=<id> with a JSON body, answers JSON. */
export async function startFixtureServer(): Promise<{ url: string; close(): Promise<void> }> {
  const fixtures = new Map<string, Fixture>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fixtures');
      const [name = '', action = ''] = url.pathname.split('/').filter(Boolean);
      try {
        const make = FIXTURES[name];
        if (!make) throw new Error(`no fixture ${name}`);
        let fixture = fixtures.get(name);
        if (!fixture) fixtures.set(name, (fixture = make()));
        const answer = await fixture.handle(action, url.searchParams.get('worker') ?? '0', await jsonBody(req));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer ?? null));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? (err.stack ?? err.message) : String(err));
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all([...fixtures.values()].map((f) => f.close()));
    },
  };
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}
