/**
 * Checks across documents: one identity (kind + metadata.name) per object, one Pipe manifest per
 * pipe, and alerts that name a dashboard must name a Dashboard manifest and one of its tile keys.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { AlertSpec } from '../kinds/alert/schema.js';
import type { DashboardSpec } from '../kinds/dashboard/schema.js';
import type { PipeSpec } from '../kinds/pipe/schema.js';
import type { LoadedDocument } from './document.js';
import { positionAt } from './positions.js';
import { didYouMean } from './suggest.js';

/** A problem found on one document; that document must not become a resource. */
interface Finding {
  doc: LoadedDocument;
  diagnostic: Diagnostic;
}

function at(d: LoadedDocument, path: PropertyKey[], pathText: string, code: string, message: string): Finding {
  const diagnostic: Diagnostic = { severity: 'error', code, message, file: d.file, ...positionAt(d.doc, d.lineCounter, path), path: pathText, address: d.resource.address };
  return { doc: d, diagnostic };
}

const where = (d: LoadedDocument) => `${d.file}:${d.resource.source.line}`;

/** Diagnostics of the checks, and the documents they reject (the first of duplicates stays). */
export function crossCheck(docs: readonly LoadedDocument[]): { diagnostics: Diagnostic[]; rejected: Set<LoadedDocument> } {
  const findings = [...duplicateIdentities(docs), ...duplicatePipes(docs), ...alertReferences(docs)];
  return { diagnostics: findings.map((f) => f.diagnostic), rejected: new Set(findings.map((f) => f.doc)) };
}

function duplicateIdentities(docs: readonly LoadedDocument[]): Finding[] {
  const first = new Map<string, LoadedDocument>();
  const out: Finding[] = [];
  for (const d of docs) {
    const seen = first.get(d.resource.address);
    if (seen) out.push(at(d, ['metadata', 'name'], 'metadata.name', 'duplicate-identity', `${d.resource.address} is already defined at ${where(seen)}; metadata.name must be unique per kind`));
    else first.set(d.resource.address, d);
  }
  return out;
}

function duplicatePipes(docs: readonly LoadedDocument[]): Finding[] {
  const first = new Map<string, LoadedDocument>();
  const out: Finding[] = [];
  for (const d of docs.filter((x) => x.resource.kind === 'Pipe')) {
    const spec = d.resource.spec as PipeSpec;
    const key = spec.id !== undefined ? `id:${spec.id}` : `name:${spec.name ?? ''}`;
    const seen = first.get(key);
    const field = spec.id !== undefined ? 'id' : 'name';
    if (seen) out.push(at(d, ['spec', field], `spec.${field}`, 'duplicate-pipe', `pipe ${spec.id ?? spec.name ?? ''} is already managed by ${seen.resource.address} (${where(seen)}); one Pipe manifest per pipe`));
    else first.set(key, d);
  }
  return out;
}

function alertReferences(docs: readonly LoadedDocument[]): Finding[] {
  const dashboards = new Map<string, DashboardSpec>();
  for (const d of docs) if (d.resource.kind === 'Dashboard') dashboards.set(d.resource.name, d.resource.spec as DashboardSpec);
  const out: Finding[] = [];
  for (const d of docs.filter((x) => x.resource.kind === 'Alert')) {
    const spec = d.resource.spec as AlertSpec;
    if (typeof spec.dashboard !== 'string') continue;
    const dashboard = dashboards.get(spec.dashboard);
    if (!dashboard) {
      const message = `dashboard '${spec.dashboard}' is not the metadata.name of any Dashboard manifest${didYouMean(spec.dashboard, dashboards.keys())} (for a dashboard obsync does not manage, use dashboard: {id: ...})`;
      out.push(at(d, ['spec', 'dashboard'], 'spec.dashboard', 'unknown-dashboard', message));
      continue;
    }
    if (typeof spec.tile !== 'string') continue;
    const keys = dashboard.tiles.map((t) => t.key);
    if (!keys.includes(spec.tile)) {
      const message = `tile '${spec.tile}' is not a tile key of Dashboard/${spec.dashboard}${didYouMean(spec.tile, keys)} (keys: ${keys.join(', ') || 'none'})`;
      out.push(at(d, ['spec', 'tile'], 'spec.tile', 'unknown-tile', message));
    }
  }
  return out;
}
