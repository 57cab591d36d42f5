/**
 * An event in a few words, for people: the status page's event rows and notification texts. The
 * text is plain (the page escapes it, Slack texts are escaped for Slack): it never carries a
 * field value, only addresses, paths, codes and (scrubbed) messages.
 */
import type { EventOf, ObsyncEvent } from './vocabulary.js';

const MAX_PATHS = 5;

function pathList(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const shown = paths.slice(0, MAX_PATHS).join(', ');
  return paths.length > MAX_PATHS ? `${shown} and ${paths.length - MAX_PATHS} more` : shown;
}

type Counts = { create: number; update: number; delete: number; unchanged: number; adopted: number; failed: number };

/** What a run did (apply mode: `1 updated`) or found to do (plan mode: `1 to update`); zeros left out but for unchanged. */
export function countsText(c: Counts, mode: 'apply' | 'plan'): string {
  const done = (n: number, verb: string, past: string) => (n ? `${n} ${mode === 'plan' ? `to ${verb}` : past}` : '');
  const parts = [
    done(c.create, 'create', 'created'),
    done(c.update, 'update', 'updated'),
    done(c.delete, 'delete', 'deleted'),
    done(c.adopted, 'adopt', 'adopted'),
    c.failed ? `${c.failed} failed` : '',
    `${c.unchanged} unchanged`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** An instant as every text of obsync's pages shows it: `2026-11-26 12:00:00 UTC`. */
export function utcText(iso: string): string {
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
    .replace(/Z$/, ' UTC');
}

/** The object an event is about, when it has one. */
export function eventObject(e: ObsyncEvent): string | undefined {
  return 'address' in e && typeof e.address === 'string' ? e.address : undefined;
}

/** What happened, without the object (shown beside it). */
export function describeEvent(e: ObsyncEvent): string {
  switch (e.event) {
    case 'run-started':
      return `${e.mode} run started (${e.trigger.join(', ')})`;
    case 'run-finished':
      // Its error is told once, by the failure event of the run (or the target's state), not again here.
      return (
        `${e.mode} run: ${e.result} in ${(e.durationMs / 1000).toFixed(1)} s — ` +
        `${e.planned ? countsText(e.counts, e.mode) : 'failed before planning'}`
      );
    case 'drift': {
      const fields = e.paths.length ? `: ${pathList(e.paths)}` : '';
      if (e.reason === 'missing') return 'not on the service (deleted there, or not created yet)';
      if (e.reason === 'not-declared') return 'no longer declared (a prune would delete it)';
      if (e.reason === 'spec-changed') return `the manifest changed, not applied${fields}`;
      return `changed on the service${fields}`;
    }
    case 'healed':
      return `put back as declared${e.paths.length ? `: ${pathList(e.paths)}` : ''}`;
    case 'created':
      return `created${e.id ? ` (id ${e.id})` : ''}`;
    case 'updated':
      return `updated${e.paths.length ? `: ${pathList(e.paths)}` : ''}`;
    case 'deleted':
      return `deleted (pruned)${e.id ? `, id ${e.id}` : ''}`;
    case 'adopted':
      return `adopted existing id ${e.id}${e.paths.length ? `, changed ${pathList(e.paths)}` : ', already as declared'}`;
    case 'moved': {
      const parts = (e.parts ?? []).map((p) => `${p.from} → ${p.to}`).join(', ');
      return `renamed${e.from ? ` from ${e.from}` : ''}${parts ? `${e.from ? ';' : ''} parts ${parts}` : ''}, same id`;
    }
    case 'imported':
      return `bound to id ${e.id} by ${e.via}`;
    case 'refused':
      return `refused (${e.guard}): ${e.message}`;
    case 'failed':
      return `failed (${e.code}): ${e.message}`;
    case 'non-convergent':
      return e.paths.length > 0
        ? `the service does not keep ${pathList(e.paths)}`
        : 'the service does not keep the object: created again and again, found missing each time; not created again';
    case 'leader-acquired':
      return `leader: ${e.holder}`;
    case 'leader-lost':
      return `no longer leader: ${e.holder}`;
    case 'replicas-disagree':
      return e.details.length === 0 ? 'replicas agree again' : `replicas disagree: ${e.details.join('; ')}`;
    case 'manifests-invalid': {
      const [first] = e.diagnostics;
      const where = first ? `${first.file ?? ''}${first.line ? `:${first.line}` : ''}${first.col ? `:${first.col}` : ''}` : '';
      return `manifests invalid (${e.errors} error(s))${first ? `: ${where ? `${where}: ` : ''}${first.message}` : ''}`;
    }
    case 'manifests-recovered':
      return 'manifests valid again';
    case 'target-unreachable':
      return `service unreachable (${e.status === 0 ? 'no response' : `HTTP ${e.status}`}): ${e.message}`;
    case 'target-recovered':
      return `service answers again (unreachable since ${utcText(e.downSince)})`;
    case 'proposal': {
      const where = e.url ?? `branch ${e.branch}`;
      const what = `${e.objects.length} object(s)${e.conflicts > 0 ? `, ${e.conflicts} conflict(s) to decide` : ''}`;
      if (e.outcome === 'closed') return `proposal closed${e.expired ? ' (older than proposalMaxAge: put back)' : ''}: ${where}`;
      return `proposal ${e.outcome}: ${where} (${what})`;
    }
    case 'ignore-suggested':
      return `${ignoreSuggestionText(e)}; obsync does not add it`;
  }
}

/** A suggested ignore rule in one line (the event's text, the notification's summary). */
export function ignoreSuggestionText(e: EventOf<'ignore-suggested'>): string {
  const path = JSON.stringify(e.path);
  const kind = e.address.slice(0, e.address.indexOf('/'));
  return (
    `${e.path} of ${e.address} changed on the service in ${e.times} runs within ${e.withinDays} days: suggest metadata.ignore: ` +
    `[${path}] in its manifest, or ${kind}: [${path}] under the target's ignore in obsync.yaml`
  );
}
