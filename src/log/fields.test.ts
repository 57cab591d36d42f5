import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverFields, withoutReservedKeys } from './fields.js';
import { createLogger } from './logger.js';

/** Every line a JSON logger writes for `fields`, parsed. */
function logged(fields: Record<string, unknown>): Record<string, unknown> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  createLogger({ format: 'json', stream: out }).warn(fields, 'fixed message');
  return JSON.parse(text) as Record<string, unknown>;
}

describe('log fields', () => {
  it('server.address and server.port from a host, IPv6 too', () => {
    expect(serverFields('api.example.com')).toEqual({ 'server.address': 'api.example.com' });
    expect(serverFields('127.0.0.1:8000')).toEqual({ 'server.address': '127.0.0.1', 'server.port': 8000 });
    expect(serverFields('[::1]:9464')).toEqual({ 'server.address': '::1', 'server.port': 9464 });
  });

  it('no logged line has a top-level status or host, whatever a caller passes; an HTTP status is http.response.status_code', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.oneof(fc.integer({ min: 0, max: 599 }), fc.string()), { nil: undefined }),
        fc.option(fc.oneof(fc.domain(), fc.constant('127.0.0.1:8000')), { nil: undefined }),
        (rest, status, host) => {
          const fields = { ...rest, ...(status === undefined ? {} : { status }), ...(host === undefined ? {} : { host }) };
          const line = logged(fields);
          expect(Object.hasOwn(line, 'status')).toBe(false);
          expect(Object.hasOwn(line, 'host')).toBe(false);
          if (typeof status === 'number' && status > 0) expect(line['http.response.status_code']).toBe(status);
          if (host !== undefined) expect(line['server.address']).toBe(host.replace(/:\d+$/, ''));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('leaves fields without a reserved key as they are', () => {
    const fields = { target: 't', 'http.request.method': 'GET' };
    expect(withoutReservedKeys(fields)).toBe(fields);
  });
});
