/** Fixtures shared by the two parts of the dashboards port (the real file's setup, through the API). */
import { beforeEach } from 'vitest';
import { fixtures, newObjectId, usePeer, type Peer } from './support.js';

export const BASE_URL = '/api/v2/dashboards';
export const TEST_TAGS = ['external-api', 'test'];

export interface DashboardWorld {
  peer: () => Peer;
  connection: () => { id: string; _id: string };
  traceSource: () => { id: string; _id: string };
  metricSource: () => { id: string; _id: string };
  authRequest: (method: 'get' | 'post' | 'put' | 'delete', url: string) => ReturnType<Peer['authRequest']>;
  /** `new Dashboard({ name: 'Test Dashboard', tiles: [], team, ...data }).save()`, through POST. */
  createTestDashboard: (data?: Record<string, unknown>) => Promise<{ _id: string; id: string } & Record<string, any>>;
}

const withMongoId = <T extends { id: string }>(row: T) => ({ ...row, _id: row.id });

/** The real file's `beforeEach`: a connection, a trace source and a metric source. */
export function useDashboardWorld(): DashboardWorld {
  const peer = usePeer();
  let state: { connection: { id: string }; traceSource: { id: string }; metricSource: { id: string } } | undefined;
  beforeEach(async () => {
    const f = fixtures(peer().agent);
    const connection = await f.connection();
    const traceSource = await f.traceSource(connection.id, { name: 'Traces', defaultTableSelectExpression: '*' });
    const metricSource = await f.metricSource(connection.id, { name: 'Metrics' });
    state = { connection, traceSource, metricSource };
  });
  const get = () => {
    if (!state) throw new Error('no dashboard world (outside a test?)');
    return state;
  };
  return {
    peer,
    connection: () => withMongoId(get().connection),
    traceSource: () => withMongoId(get().traceSource),
    metricSource: () => withMongoId(get().metricSource),
    authRequest: (method, url) => peer().authRequest(method, url),
    createTestDashboard: async (data = {}) =>
      withMongoId(await fixtures(peer().agent).dashboard({ name: 'Test Dashboard', tiles: [], ...data })),
  };
}

export { newObjectId };
