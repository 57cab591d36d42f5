/** `obsync export --adopt`: obsync owns every exported object; and the warning for an object the project already declares. */
import { join, relative, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { setOwn } from '../../core/json.js';
import type { ExportResult } from '../../export/exporter.js';
import type { CliIO } from '../io.js';
import type { Session } from '../session-types.js';

/** An exported object the project's manifests already declare (outside the exported files) would be declared twice. */
export function warnDeclaredElsewhere(io: CliIO, session: Session, result: ExportResult, outDir: string): void {
  const exported = new Map(result.manifests.map((m) => [m.address, join(outDir, m.file)]));
  const twice = session.desired.filter((r) => exported.has(r.address) && resolve(r.source.file) !== exported.get(r.address));
  if (twice.length === 0) return;
  const some = twice
    .slice(0, 3)
    .map((r) => `${r.address} in ${relative(io.cwd, r.source.file)}`)
    .join(', ');
  io.stderr.write(
    `warning: ${twice.length} exported object${twice.length === 1 ? ' is' : 's are'} already declared by ` +
      `your manifests (${some}${twice.length > 3 ? ', …' : ''}); keep one manifest per object before the ` +
      `next plan\n`,
  );
}

/** Loads the written tree with the secret values (in memory only) and binds every manifest to its object. */
export async function adopt(io: CliIO, session: Session, outDir: string, result: ExportResult): Promise<void> {
  const { loadManifests } = await import('../../manifests/load.js');
  const env: Record<string, string | undefined> = { ...io.env };
  for (const v of result.variables) setOwn(env, v.name, v.value);
  const loaded = loadManifests(
    result.manifests.map((m) => join(outDir, m.file)),
    { env },
  );
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    const { formatDiagnostic } = await import('../../core/diagnostics.js');
    throw new ConfigError(
      `the exported manifests do not validate, so nothing was adopted:\n${errors.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`,
      { hint: 'this is a bug in obsync export: please report it' },
    );
  }
  const { adoptExported } = await import('../../export/adopt.js');
  const { bound, added } = await adoptExported({
    port: session.port,
    inventory: session.inventory,
    desired: loaded.resources,
    exported: result.manifests,
    concurrency: session.defaults.concurrency,
    now: new Date(),
    elsewhere: await session.ownersElsewhere(),
  });
  for (const entry of added)
    if (entry.id !== null)
      session.events.emit(session.port.target, {
        event: 'imported',
        address: `${entry.kind}/${entry.name}`,
        id: entry.id,
        via: 'export --adopt',
      });
  const already = result.manifests.length - bound;
  io.stdout.write(
    `\nAdopted ${bound} ` +
      `object${bound === 1 ? '' : 's'}${already > 0 ? ` (${already} already owned)` : ''}: obsync owns ` +
      `every exported object now (state: ${session.state.location}); nothing was written to the service.\n`,
  );
}
