/**
 * Sources (selfhosted-api §1.4, §3.5, §4.3; hosted-api §2.4). PUT replaces the whole source (the
 * kind may change), so the manifest is the whole truth: every field the kind has is compared,
 * after the service's normalisation (./canonical.ts). Adopted by name: tiles, filters and saved
 * searches find a source by its name, so two of one name would break them anyway. A source names
 * its connection and the sources it is linked to (a log source its trace source, and back):
 * sources are planned after connections, and linked sources object by object (a link to a source
 * that exists needs no order). Deleting a source or a connection deletes nothing with it: the
 * service leaves what named it pointing at nothing (selfhosted-api §7.2).
 */
import { setOwn } from '../../core/json.js';
import type { Json, JsonObject } from '../../core/wire.js';
import type { Canonical, LiveRef, ManagedKind, SpecRef } from '../kind.js';
import { isNameOrId, tokenJson, type RefContext, type TokenContext } from '../refs.js';
import { canonicalSource } from './canonical.js';
import { LINKS, sourceLive, type LinkField, type SourceLive, type SourceSpecView } from './model.js';
import { SOURCE_FIELDS, sourceSpecSchema } from './schema.js';
import { sourceToManifest } from './export.js';

type Obj = { [k: string]: Json };

const LINK_FIELDS = Object.keys(LINKS) as LinkField[];

export const source: ManagedKind<'Source', SourceSpecView, SourceLive> = {
  kind: 'Source',
  description:
    'A source of the service: where it reads logs, traces, sessions, metrics, PromQL or network flows, and how the columns map. ' +
    'obsync creates, updates and (with --prune) deletes it.',
  managed: true,
  noun: 'source',
  refersTo: ['Connection', 'Source'],
  live: sourceLive,
  routes: {
    'self-hosted': { api: 'observability', path: 'sources', paging: 'none', update: 'PUT' },
    hosted: { api: 'observability', path: 'sources', paging: 'none', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name,
  liveRefs(live) {
    const refs: LiveRef[] = typeof live.connection === 'string' ? [{ kind: 'Connection', id: live.connection }] : [];
    for (const field of LINK_FIELDS) {
      const id = live[LINKS[field]];
      if (typeof id === 'string' && id !== '' && id !== live.id) refs.push({ kind: 'Source', id });
    }
    return refs;
  },
  spec: sourceSpecSchema,
  creatable: true,
  deletable: true,

  references(spec) {
    const refs: SpecRef[] = [{ kind: 'Connection', ref: spec.connection, path: ['connection'] }];
    for (const field of LINK_FIELDS) {
      const ref = spec[field];
      if (isNameOrId(ref)) refs.push({ kind: 'Source', ref, path: [field] });
    }
    return refs;
  },

  toManifest: sourceToManifest,
  desiredKey: (res) => keyOf(res.spec.name),
  liveKey: (live) => keyOf(live.name),
  bodyKey: (body) => keyOf(typeof body.name === 'string' ? body.name : ''),

  canonicalDesired(res, refs): Canonical {
    const errors: string[] = [];
    const fields = specFields(res.spec);
    const connection = refs.ref('Connection', res.spec.connection);
    if (connection.ok) fields.connection = tokenJson(connection.token);
    else errors.push(`${connection.error} (at spec.connection)`);
    for (const field of LINK_FIELDS) {
      const ref = res.spec[field];
      if (!isNameOrId(ref)) continue;
      const use = refs.ref('Source', ref);
      if (use.ok) setOwn(fields, field, tokenJson(use.token));
      else errors.push(`${use.error} (at spec.${field})`);
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value: canonicalSource(fields) };
  },

  canonicalLive(live, { tokens }) {
    return canonicalSource(liveFields(live as unknown as Obj, tokens));
  },

  createPayload: (res, refs) => payload(res.spec, refs),
  update: (res, _live, { refs }) => ({ payload: payload(res.spec, refs) }),
  recreatePayload: (body) => ({ ...body }),
};

function keyOf(name: string): string {
  return `name:${name}`;
}

/** The spec's own fields (everything but the references). */
function specFields(spec: SourceSpecView): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'connection' || (LINK_FIELDS as string[]).includes(key) || value === undefined) continue;
    setOwn(out, key, value);
  }
  return out;
}

/** A live source in manifest terms: only the fields its kind has, ids as tokens. */
function liveFields(live: Obj, tokens: TokenContext): Obj {
  const kind = typeof live.kind === 'string' ? live.kind : '';
  const known = SOURCE_FIELDS[kind as keyof typeof SOURCE_FIELDS] ?? Object.keys(live);
  const out: Obj = {};
  for (const field of known) {
    if (field === 'connection') {
      if (typeof live.connection === 'string') out.connection = tokenJson(tokens.token('Connection', live.connection));
      continue;
    }
    if ((LINK_FIELDS as string[]).includes(field)) {
      const id = live[LINKS[field as LinkField]];
      if (typeof id === 'string' && id !== '') setOwn(out, field, tokenJson(tokens.token('Source', id)));
      continue;
    }
    const value = live[field];
    if (value !== undefined) setOwn(out, field, value);
  }
  return out;
}

/** The body of a create or a PUT (a full replace): the spec, references as ids (or placeholders). */
function payload(spec: SourceSpecView, refs: RefContext): JsonObject {
  const body: JsonObject = specFields(spec);
  // Unresolvable references were reported by canonicalDesired; such a step never reaches apply.
  body.connection = refs.wire('Connection', spec.connection) ?? '';
  for (const field of LINK_FIELDS) {
    const ref = spec[field];
    if (isNameOrId(ref)) setOwn(body, LINKS[field], refs.wire('Source', ref) ?? '');
  }
  return body;
}
