/**
 * Which exposition format a scraper asked for (issue 54): OpenMetrics when its `Accept` header
 * names `application/openmetrics-text` (version 1.0.0, or no version) at least as high as any
 * text format it accepts (Prometheus asks for OpenMetrics 1.0.0 at q=0.5, then text/plain 0.0.4
 * at q=0.3, then anything lower); the Prometheus text format otherwise, and for no header at all.
 */

export type Exposition = 'openmetrics' | 'text';

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

export function exposition(accept: string | undefined): Exposition {
  const ranges = parseAccept(accept ?? '');
  const openMetrics = best(ranges, (r) => r.type === 'application/openmetrics-text' && versionIs(r, '1.0.0'));
  const text = best(ranges, (r) => ['text/plain', 'text/*', '*/*'].includes(r.type) && versionIs(r, '0.0.4'));
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'text';
}

function versionIs(range: MediaRange, version: string): boolean {
  const v = range.params.get('version');
  return v === undefined || v === version;
}

/** The highest `q` of the ranges that match (0: none). */
function best(ranges: readonly MediaRange[], matches: (r: MediaRange) => boolean): number {
  return ranges.filter(matches).reduce((q, r) => Math.max(q, r.q), 0);
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type = '', ...rest] = part.split(';').map((s) => s.trim());
    if (!type.includes('/')) continue;
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0)
        params.set(
          p.slice(0, eq).trim().toLowerCase(),
          p
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, ''),
        );
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    ranges.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 });
  }
  return ranges;
}
