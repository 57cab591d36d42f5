/** The self-hosted variant: `{baseUrl}/api/v2/...`, Bearer key, `{data}` bodies (selfhosted-api §1-4). */
import * as z from 'zod';
import type { CallOptions, ChartsPort, SearchPort, SeriesQuery } from '../core/ports.js';
import { wireSeriesRow } from '../core/wire.js';
import type { Api } from './api.js';
import type { Envelope } from './envelope.js';
import { topLevelMember } from './list-items.js';
import { apiPath, below } from './paths.js';
import { searchRows } from './search-walk.js';
import type { Response } from './transport-types.js';

export const selfHostedEnvelope: Envelope = {
  unwrap: (body) => (typeof body === 'object' && body !== null && 'data' in body ? body.data : body),
  listKey: 'data',
  total(res: Response) {
    const header = res.headers['x-total-count'];
    const fromHeader = Number(Array.isArray(header) ? header[0] : header);
    if (Number.isFinite(fromHeader) && header !== undefined) return fromHeader;
    return metaTotal(res);
  },
  bodyTotal: metaTotal,
  describe(res: Response) {
    const body = res.body as { message?: unknown; error?: unknown } | undefined;
    const message =
      typeof body?.message === 'string' ? body.message : typeof body?.error === 'string' ? body.error : res.text.slice(0, 300);
    return { message };
  },
};

const ROOT = apiPath('api', 'v2');

/** Where each API is rooted on this variant; it has no pipes API and no hosted service. */
export function selfHostedRoots(): Record<'observability' | 'pipes' | 'service', string | null> {
  return { observability: ROOT, pipes: null, service: null };
}

export function selfHostedCapabilities(api: Api): { charts: ChartsPort; search: SearchPort } {
  return {
    charts: {
      series: (query: SeriesQuery, o?: CallOptions) =>
        api.call(
          {
            method: 'POST',
            path: below(ROOT, 'charts', 'series'),
            body: query,
            idempotent: true,
            retries: o?.retries,
            signal: o?.signal,
          },
          z.array(wireSeriesRow),
        ),
    },
    search: { rows: (query, o) => searchRows(api, below(ROOT, 'search'), query, o) },
  };
}

/** The body's `meta.total`, only the envelope's `meta` parsed: the page's items are found in its bytes (a proxy may drop the header). */
function metaTotal(res: Response): number | undefined {
  const meta = topLevelMember(res.bytes, 'meta') as { total?: unknown } | undefined;
  return typeof meta?.total === 'number' ? meta.total : undefined;
}
