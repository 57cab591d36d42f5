/**
 * Support for the ports of the real HyperDX external-API v2 integration tests
 * (hyperdxio/hyperdx@b52a6fa8, packages/api/src/routers/external-api/__tests__/*.int.test.ts).
 *
 * The real tests drive the server with supertest and set up state through the Mongoose models;
 * the ports drive the sandbox over loopback HTTP with a small supertest-like agent and set up
 * state through the API itself (`fixtures`). Each test gets a fresh sandbox (the real
 * `clearDBs()` between tests); "another team" is a second team of the same sandbox with its
 * own key. Where a real test reads MongoDB directly, the port reads the sandbox's stored row
 * (`stored`), which holds the same fields in the sandbox's own storage shape.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';

export const OTHER_TEAM_KEY = 'peer-hyperdx-other-team-key';

export interface Res {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON, or `{}` when the body is not JSON (as supertest does). */
  body: any;
}

type Method = 'get' | 'post' | 'put' | 'delete';

/** `agent[method](url).set(...).send(body).expect(status)` over fetch. */
export class Req implements PromiseLike<Res> {
  #headers: Record<string, string> = {};
  #body: string | undefined;

  constructor(
    private readonly base: string,
    private readonly method: Method,
    private readonly path: string,
  ) {}

  set(name: string, value: string): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  send(body: unknown): this {
    this.#body = JSON.stringify(body);
    this.#headers['content-type'] = 'application/json';
    return this;
  }

  async run(): Promise<Res> {
    const res = await fetch(`${this.base}${this.path}`, { method: this.method.toUpperCase(), headers: this.#headers, body: this.#body });
    const text = await res.text();
    let body: unknown = {};
    if ((res.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text) as unknown;
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, text, body };
  }

  async expect(status: number): Promise<Res> {
    const res = await this.run();
    if (res.status !== status)
      throw new Error(`expected ${status}, got ${res.status} for ${this.method.toUpperCase()} ${this.path}: ${res.text.slice(0, 600)}`);
    return res;
  }

  then<A = Res, B = never>(
    ok?: ((r: Res) => A | PromiseLike<A>) | null,
    fail?: ((e: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    return this.run().then(ok, fail);
  }
}

export interface Agent {
  get(path: string): Req;
  post(path: string): Req;
  put(path: string): Req;
  delete(path: string): Req;
}

export function agentFor(base: string, token?: string): Agent {
  const make = (method: Method) => (path: string) => {
    const req = new Req(base, method, path);
    return token === undefined ? req : req.set('Authorization', `Bearer ${token}`);
  };
  return { get: make('get'), post: make('post'), put: make('put'), delete: make('delete') };
}

export interface Peer {
  sandbox: SandboxHandle;
  /** The caller's team (supertest with `Authorization: Bearer <accessKey>`). */
  authRequest: (method: Method, path: string) => Req;
  /** The same, as an agent. */
  agent: Agent;
  /** No credentials (`request(server.getHttpServer())`). */
  anonymous: Agent;
  /** A second team of the same server (the real tests' `new ObjectId()` teams). */
  otherTeam: Agent;
  /** The stored row of one of the caller team's collections, or undefined. */
  stored: (collection: string, id: string) => Record<string, any> | undefined;
  /** Every stored row of one of the caller team's collections. */
  storedAll: (collection: string) => Record<string, any>[];
}

/** A fresh, empty sandbox per test (rate limit off), with a second team. */
export function usePeer(): () => Peer {
  let peer: Peer | undefined;
  beforeEach(async () => {
    const sandbox = await startSandbox({ port: 0, seed: 'none', rateLimit: 'off', teams: [{ apiKey: OTHER_TEAM_KEY }] });
    const me = agentFor(sandbox.url, sandbox.credentials.apiKey);
    const rows = (collection: string) => {
      const state = (sandbox.selfHostedState().state ?? {}) as Record<string, unknown>;
      const list = state[collection];
      if (!Array.isArray(list)) throw new Error(`the sandbox stores no collection '${collection}'`);
      return list as Record<string, any>[];
    };
    peer = {
      sandbox,
      authRequest: (method, path) => me[method](path),
      agent: me,
      anonymous: agentFor(sandbox.url),
      otherTeam: agentFor(sandbox.url, OTHER_TEAM_KEY),
      stored: (collection, id) => rows(collection).find((r) => r.id === id),
      storedAll: rows,
    };
  });
  afterEach(async () => {
    await peer?.sandbox.close();
    peer = undefined;
  });
  return () => {
    if (!peer) throw new Error('usePeer(): no sandbox (called outside a test?)');
    return peer;
  };
}

/** `new ObjectId().toString()`: a well-formed id that names nothing. */
export function newObjectId(): string {
  return (
    Math.floor(Date.now() / 1000)
      .toString(16)
      .padStart(8, '0') + randomBytes(8).toString('hex')
  );
}

export const DEFAULT_DATABASE = 'default';
export const DEFAULT_LOGS_TABLE = 'otel_logs';
export const DEFAULT_TRACES_TABLE = 'otel_traces';

export const MOCK_CONNECTION = { name: 'Default', host: 'http://localhost:8123', username: 'default', password: 'clickhouse-password' };

/** State the real tests create through the models, created here through the API. */
export function fixtures(agent: Agent) {
  const data = async (req: Req): Promise<{ id: string } & Record<string, any>> => (await req.expect(200)).body.data;
  const api = {
    connection: (overrides: Record<string, unknown> = {}) =>
      data(agent.post('/api/v2/connections').send({ ...MOCK_CONNECTION, ...overrides })),
    source: (body: Record<string, unknown>) => data(agent.post('/api/v2/sources').send(body)),
    logSource: (connection: string, overrides: Record<string, unknown> = {}) =>
      api.source({
        kind: 'log',
        name: 'Logs',
        connection,
        from: { databaseName: DEFAULT_DATABASE, tableName: DEFAULT_LOGS_TABLE },
        timestampValueExpression: 'Timestamp',
        defaultTableSelectExpression: 'Timestamp, Body',
        ...overrides,
      }),
    traceSource: (connection: string, overrides: Record<string, unknown> = {}) =>
      api.source({
        kind: 'trace',
        name: 'Traces',
        connection,
        from: { databaseName: DEFAULT_DATABASE, tableName: DEFAULT_TRACES_TABLE },
        timestampValueExpression: 'Timestamp',
        defaultTableSelectExpression: 'Timestamp, SpanName',
        durationExpression: 'Duration',
        durationPrecision: 3,
        traceIdExpression: 'TraceId',
        spanIdExpression: 'SpanId',
        parentSpanIdExpression: 'ParentSpanId',
        spanNameExpression: 'SpanName',
        spanKindExpression: 'SpanKind',
        ...overrides,
      }),
    metricSource: (connection: string, overrides: Record<string, unknown> = {}) =>
      api.source({
        kind: 'metric',
        name: 'Metrics',
        connection,
        from: { databaseName: DEFAULT_DATABASE, tableName: '' },
        metricTables: { gauge: 'otel_metrics_gauge', sum: 'otel_metrics_sum', histogram: 'otel_metrics_histogram' },
        timestampValueExpression: 'TimeUnix',
        resourceAttributesExpression: 'ResourceAttributes',
        ...overrides,
      }),
    sessionSource: (connection: string, traceSourceId: string, overrides: Record<string, unknown> = {}) =>
      api.source({
        kind: 'session',
        name: 'Sessions',
        connection,
        from: { databaseName: DEFAULT_DATABASE, tableName: 'rrweb_events' },
        timestampValueExpression: 'Timestamp',
        traceSourceId,
        ...overrides,
      }),
    webhook: (overrides: Record<string, unknown> = {}) =>
      data(
        agent.post('/api/v2/webhooks').send({ name: 'Test Webhook', service: 'slack', url: 'https://hooks.slack.com/test', ...overrides }),
      ),
    savedSearch: (sourceId: string, overrides: Record<string, unknown> = {}) =>
      data(
        agent
          .post('/api/v2/saved-searches')
          .send({ name: 'Test Saved Search', where: 'error', whereLanguage: 'lucene', sourceId, ...overrides }),
      ),
    dashboard: (body: Record<string, unknown>) =>
      data(agent.post('/api/v2/dashboards').send({ name: 'Test Dashboard', tiles: [], ...body })),
  };
  return api;
}

/** lodash `omit` for the round-trip assertions. */
export function omit<T extends Record<string, unknown>>(value: T, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

export { expect };
