/** `obsync keys list`: the keys as a table (or JSON), never a secret. */
import type { WireApiKey } from '../../core/wire.js';
import type { CliIO } from '../io.js';
import { formatTable } from '../table.js';

export function listKeys(io: CliIO, keys: readonly WireApiKey[], output: 'text' | 'json'): void {
  if (output === 'json') {
    io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
    return;
  }
  if (keys.length === 0) {
    io.stderr.write('the organization has no API keys\n');
    return;
  }
  const rows = keys.map((k) => [
    k.id,
    k.name,
    k.state,
    rolesOf(k).join(',') || '-',
    k.keySuffix ? `…${k.keySuffix}` : '-',
    day(k.createdAt),
    k.expireAt ? day(k.expireAt) : 'never',
    k.usedAt ? day(k.usedAt) : 'never',
    (k.ipAccessList ?? []).map((e) => (e.source === '0.0.0.0/0' ? 'anywhere' : e.source)).join(',') || 'none',
  ]);
  io.stdout.write(formatTable(['ID', 'NAME', 'STATE', 'ROLES', 'KEY ID', 'CREATED', 'EXPIRES', 'LAST USED', 'ALLOWED FROM'], rows));
}

/** Role names: the assigned roles' names, else the legacy role list. */
function rolesOf(key: WireApiKey): string[] {
  const assigned = (key as { assignedRoles?: unknown }).assignedRoles;
  const names = Array.isArray(assigned)
    ? assigned.flatMap((r: unknown) => {
        const name = typeof r === 'object' && r !== null ? (r as { roleName?: unknown }).roleName : undefined;
        return typeof name === 'string' ? [name] : [];
      })
    : [];
  return names.length > 0 ? names : [...(key.roles ?? [])];
}

/** `2026-11-26 10:15 UTC` from an ISO time (minutes: the service keeps usedAt to the minute). */
function day(iso: string | undefined): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
