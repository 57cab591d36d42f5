/**
 * Which service each target writes to, for "one service, one owner" (issue 53, item 6): two
 * targets whose base URLs are the same once normalised — and, hosted, whose organisation and
 * service are the same — write to one service. `validate` warns about them; the other commands
 * read the inventories of the targets on their target's service, so that nothing one owns is
 * adopted, imported or pruned by another (core/owners-elsewhere.ts).
 *
 * Telling two services apart too eagerly costs nothing (ids are unique per service, so another
 * service's inventory never holds one of this service's ids), so the normalisation is generous,
 * and a target whose settings cannot be resolved here counts as possibly on the same service.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { Variant } from '../core/ports.js';
import type { TargetIdentity } from '../core/target.js';
import type { Env } from './target-resolution.js';

/** Where a target writes: a service key, `unknown` (its settings use what is not set here), or `embedded` (a sandbox of its own). */
export type DeclaredService = { key: string; shown: string } | 'unknown' | 'embedded';

/** The targets on one service with this one, and those that may be. */
export interface ServiceNeighbours {
  same: string[];
  maybe: string[];
}

/**
 * The normalised service of a variant, base URL and (hosted) organisation and service: scheme and
 * host in lower case (a trailing dot dropped), no default port, user, query or fragment, the path
 * without dot segments, repeated or trailing slashes, in lower case (HyperDX's routes ignore case).
 * Undefined when the URL does not parse.
 */
export function serviceKey(variant: Variant, baseUrl: string, organizationId?: string, serviceId?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/\.$/, '');
  const path = safeDecode(url.pathname).replace(/\/+/g, '/').replace(/\/$/, '').toLowerCase();
  const base = `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${path}`;
  if (variant !== 'hosted') return base;
  return `${base} organisation ${(organizationId ?? '').toLowerCase()} service ${(serviceId ?? '').toLowerCase()}`;
}

/** The service of a resolved target (a command's own: the settings it really uses, overrides included). */
export function identityService(id: TargetIdentity, embedded: boolean): DeclaredService {
  if (embedded) return 'embedded';
  const key = serviceKey(id.variant, id.baseUrl, id.organizationId, id.serviceId);
  return key === undefined ? 'unknown' : { key, shown: shownService(id.variant, id.baseUrl, id.organizationId, id.serviceId) };
}

/**
 * The service of a target as obsync.yaml declares it, its `${env:…}` references read from the
 * environment (no file is read for a target not in use): `unknown` when a value is missing or
 * comes from elsewhere (`${file:…}`, `${var:…}`).
 */
export function declaredService(item: unknown, env: Env): DeclaredService {
  const t = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  if (t.variant === 'sandbox') return 'embedded';
  if (t.variant !== 'hosted' && t.variant !== 'self-hosted') return 'unknown';
  const baseUrl = fromEnv(t.baseUrl, env);
  if (baseUrl === undefined) return 'unknown';
  if (t.variant === 'self-hosted') {
    const key = serviceKey('self-hosted', baseUrl);
    return key === undefined ? 'unknown' : { key, shown: shownService('self-hosted', baseUrl) };
  }
  const org = fromEnv(t.organizationId, env);
  const svc = fromEnv(t.serviceId, env);
  const key = org === undefined || svc === undefined ? undefined : serviceKey('hosted', baseUrl, org, svc);
  return key === undefined ? 'unknown' : { key, shown: shownService('hosted', baseUrl, org, svc) };
}

/** The other targets on `here`'s service (same key), and those whose service is unknown. */
export function neighbours(here: string, mine: DeclaredService, all: ReadonlyMap<string, DeclaredService>): ServiceNeighbours {
  const out: ServiceNeighbours = { same: [], maybe: [] };
  if (mine === 'embedded') return out;
  for (const [name, service] of all) {
    if (name === here || service === 'embedded') continue;
    if (service === 'unknown' || mine === 'unknown') out.maybe.push(name);
    else if (service.key === mine.key) out.same.push(name);
  }
  return out;
}

/** Groups of two or more targets on one service, each with how it is shown (for `validate`). */
export function sharedServices(all: ReadonlyMap<string, DeclaredService>): { shown: string; targets: string[] }[] {
  const groups = new Map<string, { shown: string; targets: string[] }>();
  for (const [name, service] of all) {
    if (service === 'unknown' || service === 'embedded') continue;
    const group = groups.get(service.key) ?? { shown: service.shown, targets: [] };
    group.targets.push(name);
    groups.set(service.key, group);
  }
  return [...groups.values()].filter((g) => g.targets.length > 1);
}

/** `validate`'s warning for each group of targets on one service (`file`: obsync.yaml). */
export function sharedServiceWarnings(all: ReadonlyMap<string, DeclaredService>, file: string): Diagnostic[] {
  return sharedServices(all).map(({ shown, targets }) => {
    const names = targets.map((t) => `'${t}'`);
    const listed = `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
    return {
      severity: 'warning',
      code: 'shared-service',
      message:
        `targets ${listed} write to one service (${shown}): each keeps its own inventory, so an object one of them owns is ` +
        `never adopted, imported or pruned by another (those steps fail, naming the owner); give each service one target, or check ` +
        `the base URLs`,
      file,
      path: 'targets',
    };
  });
}

function shownService(variant: Variant, baseUrl: string, organizationId?: string, serviceId?: string): string {
  let base = baseUrl;
  try {
    const url = new URL(baseUrl);
    base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // shown as written
  }
  return variant === 'hosted' ? `${base}, organisation ${organizationId ?? '?'}, service ${serviceId ?? '?'}` : base;
}

/**
 * A value with its `${env:NAME}` references read from the environment; undefined when one is unset or another kind of reference is left.
 */
function fromEnv(value: unknown, env: Env): string | undefined {
  if (typeof value !== 'string') return undefined;
  let missing = false;
  const resolved = value.replace(/\$\$\{|\$\{env:([^}]*)\}/g, (_match, name?: string) => {
    if (name === undefined) return '\u0000';
    const v = env[name];
    if (v === undefined || v === '') missing = true;
    return v ?? '';
  });
  if (missing || resolved.includes('${')) return undefined;
  return resolved.replaceAll('\u0000', '${');
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
