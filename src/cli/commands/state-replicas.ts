/**
 * `obsync state replicas`: the `obsync run` replicas sharing the PostgreSQL state (issue 28) —
 * each live one with its heartbeat age, version, lease, the targets it leads (from the writer
 * leases themselves, not what it last said), the targets nobody leads, and the disagreements the
 * replicas recorded. The file state has no registry: it says so.
 */
import { ConfigError } from '../../core/errors.js';
import type { SkippedRow } from '../../core/inventory.js';
import { printable } from '../../core/printable.js';
import type { HeldLease, ReplicaRecord, StateBackend } from '../../inventory/backend.js';
import type { CliIO } from '../io.js';
import { formatTable } from '../table.js';
import { reportSkipped } from './skipped-rows.js';

export interface ReplicasReport {
  state: string;
  replicas: (Omit<ReplicaRecord, 'leads'> & { leads: string[] })[];
  /** Targets some live replica runs that no lease covers now. */
  unled: string[];
  /** Leases held by a process that is not a live replica (an apply, or a replica whose heartbeat expired). */
  otherLeases: HeldLease[];
  disagreements: string[];
  /** Rows of the registry and the leases left out: not readable, or claiming a lease no obsync grants. */
  skipped: SkippedRow[];
}

export async function replicasReport(backend: StateBackend): Promise<ReplicasReport> {
  if (backend.kind === 'file')
    throw new ConfigError(
      `the file state at ${backend.location} has no replica registry: replicas on it elect one leader per ` +
        `target and do not share the targets`,
      { hint: 'sharing targets between `obsync run` replicas needs the PostgreSQL state (state.backend: postgres, or OBSYNC_STATE_URL)' },
    );
  const registry = backend.replicas;
  if (!registry) return { state: backend.location, replicas: [], unled: [], otherLeases: [], disagreements: [], skipped: [] };
  const [registered, held] = await Promise.all([registry.list(), registry.leases()]);
  const live = registered.replicas.filter((r) => r.live);
  const leadsOf = (r: ReplicaRecord) =>
    held.leases.filter((l) => l.host === r.host && l.pid === r.pid && l.command === 'run').map((l) => l.target);
  const replicas = live.map((r) => ({ ...r, leads: leadsOf(r) }));
  const led = new Set(replicas.flatMap((r) => r.leads));
  const known = [...new Set(live.flatMap((r) => r.targets))].sort();
  return {
    state: backend.location,
    replicas,
    unled: known.filter((t) => !led.has(t)),
    otherLeases: held.leases.filter((l) => !replicas.some((r) => r.leads.includes(l.target))),
    disagreements: [...new Set(live.flatMap((r) => r.disagreements))].sort(),
    skipped: [...registered.skipped, ...held.skipped],
  };
}

/** Every line from the database goes through `printable`: a row's text cannot start a line of its own or act on the terminal. */
export async function printReplicas(io: CliIO, backend: StateBackend, output: 'text' | 'json'): Promise<void> {
  const report = await replicasReport(backend);
  if (output === 'json') {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const say = (line: string) => io.stdout.write(`${printable(line)}\n`);
  reportSkipped(io, report.skipped);
  if (report.replicas.length === 0) {
    io.stderr.write(`${printable(`no live replica of obsync run shares ${report.state}`)}\n`);
    return;
  }
  io.stdout.write(
    formatTable(
      ['REPLICA', 'HEARTBEAT', 'VERSION', 'LEASE', 'TARGETS', 'LEADS'],
      report.replicas.map((r) => [
        r.id,
        `${(r.heartbeatAgeMs / 1000).toFixed(1)} s ago`,
        r.version,
        `${r.leaseMs / 1000} s`,
        String(r.targets.length),
        `${r.leads.length}${r.leads.length ? `: ${r.leads.join(', ')}` : ''}`,
      ]),
    ),
  );
  if (report.unled.length) {
    io.stdout.write('\n');
    say(`led by nobody now: ${report.unled.join(', ')}`);
  }
  for (const l of report.otherLeases)
    say(`lease of target '${l.target}' held by ${l.command}, pid ${l.pid} on ${l.host}, not a live replica (until ${l.expiresAt})`);
  if (report.disagreements.length) {
    io.stdout.write('\nreplicas disagree:\n');
    for (const d of report.disagreements) say(`  ${d}`);
  }
}
