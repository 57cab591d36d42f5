import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { declaredService, neighbours, serviceKey, sharedServiceWarnings, type DeclaredService } from './services.js';

/** One service's base URL, spelled as people write it: case, default port, user, slashes, dot segments, query, encoding. */
const spelling = (host: string, port: number, path: string) =>
  fc
    .record({
      upperScheme: fc.boolean(),
      upperHost: fc.boolean(),
      defaultPort: fc.boolean(),
      user: fc.boolean(),
      trailing: fc.constantFrom('', '/', '//', '/./'),
      query: fc.boolean(),
      hostDot: fc.boolean(),
      upperPath: fc.boolean(),
      encoded: fc.boolean(),
    })
    .map((s) => {
      const scheme = s.upperScheme ? 'HTTP' : 'http';
      const h = `${s.upperHost ? host.toUpperCase() : host}${s.hostDot ? '.' : ''}`;
      const p = port === 80 && !s.defaultPort ? '' : `:${port}`;
      const user = s.user ? 'someone:pw@' : '';
      let pth = s.upperPath ? path.toUpperCase() : path;
      if (s.encoded) pth = pth.replace(/a/g, '%61');
      return `${scheme}://${user}${h}${p}${pth}${s.trailing}${s.query ? '?x=1#y' : ''}`;
    });

describe('serviceKey', () => {
  it('gives every spelling of one service one key, and different services different keys (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('obs.example.com', '127.0.0.1'),
        fc.constantFrom(80, 8000),
        fc.constantFrom('', '/api', '/team/a'),
        fc.uuid(),
        fc.uuid(),
        fc.boolean(),
        (host, port, path, org, svc, upperIds) => {
          const ids = (v: string) => (upperIds ? v.toUpperCase() : v);
          fc.assert(
            fc.property(spelling(host, port, path), spelling(host, port, path), (one, two) => {
              expect(serviceKey('self-hosted', one)).toBe(serviceKey('self-hosted', two));
              expect(serviceKey('hosted', one, ids(org), svc)).toBe(serviceKey('hosted', two, org, ids(svc)));
            }),
            { numRuns: 20 },
          );
          const base = `http://${host}:${port}${path}`;
          expect(serviceKey('self-hosted', base)).not.toBe(serviceKey('self-hosted', `http://${host}:${port + 1}${path}`));
          expect(serviceKey('hosted', base, org, svc)).not.toBe(serviceKey('hosted', base, org, `${svc}0`));
          expect(serviceKey('hosted', base, org, svc)).not.toBe(serviceKey('self-hosted', base));
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('declaredService and neighbours', () => {
  const env = { URL_A: 'http://obs:8000/', ORG: 'O1', EMPTY: '' };
  const of = (item: object) => declaredService(item, env);

  it('reads ${env:} references, and calls a target whose settings it cannot resolve unknown', () => {
    expect(of({ variant: 'self-hosted', baseUrl: '${env:URL_A}' })).toMatchObject({ shown: 'http://obs:8000' });
    expect(of({ variant: 'self-hosted', baseUrl: '${env:UNSET}' })).toBe('unknown');
    expect(of({ variant: 'self-hosted', baseUrl: '${env:EMPTY}' })).toBe('unknown');
    expect(of({ variant: 'self-hosted', baseUrl: '${file:url.txt}' })).toBe('unknown');
    expect(of({ variant: 'hosted', baseUrl: 'https://api', organizationId: '${env:ORG}', serviceId: 's' })).toMatchObject({
      shown: 'https://api, organisation O1, service s',
    });
    expect(of({ variant: 'sandbox' })).toBe('embedded');
  });

  it('finds the other targets on a target service, and those that may be on it', () => {
    const all = new Map<string, DeclaredService>([
      ['prod', of({ variant: 'self-hosted', baseUrl: 'http://obs:8000' })],
      ['prod-again', of({ variant: 'self-hosted', baseUrl: 'HTTP://OBS:8000/./' })],
      ['staging', of({ variant: 'self-hosted', baseUrl: 'http://obs:9000' })],
      ['somewhere', of({ variant: 'self-hosted', baseUrl: '${env:UNSET}' })],
      ['sandbox', of({ variant: 'sandbox' })],
    ]);
    expect(neighbours('prod', all.get('prod') ?? 'unknown', all)).toEqual({ same: ['prod-again'], maybe: ['somewhere'] });
    expect(neighbours('sandbox', 'embedded', all)).toEqual({ same: [], maybe: [] });
    const warnings = sharedServiceWarnings(all, 'obsync.yaml');
    expect(warnings.map((w) => [w.severity, w.code, w.file])).toEqual([['warning', 'shared-service', 'obsync.yaml']]);
    expect(warnings[0]?.message).toContain("targets 'prod' and 'prod-again' write to one service (http://obs:8000)");
  });
});
