/** Sources (selfhosted-api §1.4, §3.5): read, and referred to by name from tiles and dashboard filters. */
import { wireSource, type WireSource } from '../../core/wire.js';
import type { ReadableKind } from '../kind.js';

export const source: ReadableKind<'Source', WireSource> = {
  kind: 'Source',
  managed: false,
  noun: 'source',
  refersTo: [],
  live: wireSource,
  routes: {
    'self-hosted': { api: 'observability', path: 'sources', paging: 'none' },
    hosted: { api: 'observability', path: 'sources', paging: 'none' },
  },
  read: 'always',
  displayName: (live) => live.name,
};
