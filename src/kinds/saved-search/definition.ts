/** Saved searches (selfhosted-api §1.6, §3.4): read, and referred to by name from saved-search alerts. */
import { wireSavedSearch, type WireSavedSearch } from '../../core/wire.js';
import type { ReadableKind } from '../kind.js';

export const savedSearch: ReadableKind<'SavedSearch', WireSavedSearch> = {
  kind: 'SavedSearch',
  managed: false,
  noun: 'saved search',
  refersTo: [],
  live: wireSavedSearch,
  routes: {
    'self-hosted': { api: 'observability', path: 'saved-searches', paging: 'offset' },
    hosted: { api: 'observability', path: 'saved-searches', paging: 'offset' },
  },
  read: 'always',
  displayName: (live) => live.name,
};
