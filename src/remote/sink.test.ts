import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrub } from '../core/scrub.js';
import { sinkPoster } from './sink.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let url = '';
const received: Received[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const secret = `whsec_${randomBytes(32).toString('base64')}`;

describe('sinkPoster', () => {
  it('signs every body in the Standard Webhooks form: a Standard Webhooks library verifies it, and refuses it altered', async () => {
    const poster = sinkPoster(`${url}/hook/t0k3n-of-the-hook`, { signingSecret: secret });
    const receiver = new Webhook(secret);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.uuid(), async (body, id) => {
        received.length = 0;
        await poster.post({ body, contentType: 'application/json; charset=utf-8', id });
        const [got] = received;
        if (!got) throw new Error('nothing received');
        const headers = got.headers as Record<string, string>;
        expect(headers['webhook-id']).toBe(id);
        expect(JSON.parse(got.body)).toEqual(JSON.parse(JSON.stringify(body)));
        expect(receiver.verify(got.body, headers)).toEqual(JSON.parse(got.body));
        expect(() => receiver.verify(`${got.body} `, headers)).toThrow();
        expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(got.body, headers)).toThrow();
      }),
      { numRuns: 10 },
    );
    await poster.close();
  });

  it('sends the custom headers and the content type asked; their values and the secret are secrets of the scrubber', async () => {
    const token = 'Bearer c0ffee-custom-header-value-77';
    const poster = sinkPoster(`${url}/am/`, {
      path: 'api/v2/alerts',
      headers: { Authorization: token, 'X-Scope-OrgID': 'tenant-1234567' },
      signingSecret: secret,
    });
    received.length = 0;
    await poster.post({ body: [], contentType: 'application/cloudevents+json; charset=utf-8', id: 'm-1' });
    expect(received[0]?.path).toBe('/am/api/v2/alerts');
    expect(received[0]?.headers).toMatchObject({
      authorization: token,
      'x-scope-orgid': 'tenant-1234567',
      'content-type': 'application/cloudevents+json; charset=utf-8',
      'user-agent': 'obsync',
    });
    for (const value of [token, 'tenant-1234567', secret, secret.slice('whsec_'.length)])
      expect(scrub(`echoed: ${value}`)).toBe('echoed: (sensitive)');
    await poster.close();
  });

  it('a sink that does not answer fails with a code, never the URL or a header', async () => {
    const poster = sinkPoster('http://127.0.0.1:1/hook/s3cr3t-path-of-the-hook', { headers: { 'X-Key': 'header-secret-99887766' } });
    const err = await poster.post({ body: {}, contentType: 'application/json', id: 'x' }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/no response from the sink \(\w+\)/);
    expect(String(err)).not.toMatch(/s3cr3t|header-secret/);
    await poster.close();
  });
});
