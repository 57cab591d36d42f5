/**
 * Which error answers a caller takes as results (issue 45: no false Error spans): the transport
 * marks a request's span failed only when `init.expected` does not accept the answer. A 404 that
 * says "absent" to a look-up or a delete, and an idle service's 424 the waker answers, are
 * expected; a gateway's 404 page, a stopped service's 424 and an update's 404 are not.
 */
import { describe, expect, it } from 'vitest';
import type { RequestStats } from '../core/ports.js';
import type { Requester } from './api.js';
import { servicePortOver } from './index.js';
import { responseOf } from './response.js';
import type { Response } from './transport-types.js';

const json = (status: number, body: unknown) =>
  responseOf(status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(body)));

/** A service answering `answer(path)`; records, per request, whether its caller expected the answer. */
function service(answer: (method: string, path: string) => Response) {
  const verdicts: string[] = [];
  const stats: RequestStats = { requests: 0, writes: 0, retries: 0, throttled: 0 };
  const requester: Requester = {
    stats,
    close: () => Promise.resolve(),
    request(init) {
      const res = answer(init.method, init.path);
      if (res.status >= 400) verdicts.push(`${init.method} ${res.status} ${init.expected?.(res) === true ? 'expected' : 'failed'}`);
      return Promise.resolve(res);
    },
  };
  return { requester, verdicts };
}

const HOSTED = { name: 't', variant: 'hosted' as const, keyId: 'k', organizationId: 'o', serviceId: 's' };
const AT = { ...HOSTED, paths: { observability: 'clickstack', pipes: 'clickpipes' } };

describe('expected error answers', () => {
  it('a look-up or delete of an absent object expects its 404; an update does not; a 404 page is never expected', async () => {
    const absent = service(() => json(404, { message: 'Dashboard not found' }));
    const port = servicePortOver(absent.requester, { name: 't', variant: 'self-hosted' });
    const dashboards = port.collection('Dashboard');
    await dashboards?.get('x');
    await dashboards?.delete('x');
    await dashboards?.update('x', {}).catch(() => undefined);
    await dashboards?.update('x', {}, { expected: (a) => a.status === 404 }).catch(() => undefined);
    expect(absent.verdicts).toEqual(['GET 404 expected', 'DELETE 404 expected', 'PUT 404 failed', 'PUT 404 expected']);

    const page = service(() => responseOf(404, { 'content-type': 'text/html' }, Buffer.from('Cannot GET')));
    await servicePortOver(page.requester, AT)
      .collection('Dashboard')
      ?.get('x')
      .catch(() => undefined);
    expect(page.verdicts).toEqual(['GET 404 failed']);
  });

  it("an idle service's 424 is expected (the waker wakes it); a stopped service's is not", async () => {
    let state = 'idle';
    const hosted = service((_method, path) => {
      if (path.endsWith('/state')) return json(200, { result: {} });
      if (path.endsWith('/services/s')) return json(200, { result: { state: 'running' } });
      if (state !== 'running') {
        const body = { status: 424, error: `FAILED_DEPENDENCY: service not running. Current state: ${state}` };
        if (state === 'idle') state = 'running';
        return json(424, body);
      }
      return json(200, { result: [] });
    });
    const pipes = servicePortOver(hosted.requester, AT).collection('Pipe');
    expect(await pipes?.list()).toEqual([]);
    state = 'stopped';
    await expect(pipes?.list()).rejects.toThrow(/stopped/);
    expect(hosted.verdicts).toEqual(['GET 424 expected', 'GET 424 failed']);
  });
});
