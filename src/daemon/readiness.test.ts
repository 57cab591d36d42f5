/**
 * /readyz needs no token (issue 50 item 1): it says a status and a code, never the reason text,
 * which quotes the service (an echoed secret in a form no scrubber knows would be served to anyone).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../core/scrub.js';
import { startHealthServer, type HealthServer, type Readiness } from './health.js';
import { DaemonMetrics } from './metrics.js';
import { failureCode, probeBody } from './readiness.js';

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const failing = (reason: string, code = 'API'): Readiness => ({
  ready: false,
  reason: 'not ready: prod',
  targets: {
    prod: { ready: false, code: 'failing', reason, failure: { code, since: new Date('2026-11-26T12:00:00.000Z'), runs: 3 }, leader: true },
    staging: { ready: true, code: 'ready', reason: 'last successful run 4 s ago' },
  },
});

describe('/readyz', () => {
  it('serves the code, the failure code and since when — not the server message it failed with', async () => {
    const reason = 'failing since …: PATCH /v1/x failed: HTTP 400 — echo {"password":"unknown-form-Zx9q"}';
    server = await startHealthServer('127.0.0.1', 0, () => failing(reason), new DaemonMetrics('0.1.0'));
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      ready: false,
      reason: 'not ready: prod',
      targets: {
        prod: { ready: false, code: 'failing', error: 'API', since: '2026-11-26T12:00:00.000Z', failedRuns: 3, leader: true },
        staging: { ready: true, code: 'ready' },
      },
    });
    expect(text).not.toContain('unknown-form-Zx9q');
    expect(text).not.toContain('HTTP 400');
  });

  it('never carries a reason, whatever it holds, and a code no obsync code looks like is ERROR (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.string({ maxLength: 50 }), (reason, code) => {
        const body = JSON.stringify(probeBody(failing(`zz-${reason}-zz`, code)));
        expect(body).not.toContain('zz-');
        expect(probeBody(failing(reason, code)).targets.prod?.error).toBe(/^[A-Za-z][A-Za-z0-9_.:-]{0,39}$/.test(code) ? code : 'ERROR');
      }),
      { numRuns: 300 },
    );
  });

  it('passes the scrubber: a secret in a target name never shows', () => {
    registerSecret('target-name-secret-8841');
    const body = probeBody({ ready: true, targets: { 'target-name-secret-8841': { ready: true, code: 'ready', reason: 'x' } } });
    expect(JSON.stringify(body)).not.toContain('target-name-secret-8841');
    expect(failureCode('refused:adoption')).toBe('refused:adoption');
    expect(failureCode('<b>x</b>')).toBe('ERROR');
  });
});
