/**
 * The domain's state: plain JSON collections (so `snapshot()` is the state itself) and a
 * version counter that moves on every committed change. Operations build the next state
 * completely, after all validation, and commit it in one step ("bad requests change nothing").
 */
import * as z from 'zod';
import type { JsonRecord, JsonValue } from './contract.js';
import { deepFreeze } from '../../core/freeze.js';
import { newObjectId } from './ids.js';

export interface DomainState {
  teamId: string;
  teamName: string;
  /** The team's members; the first is the owner of the team's API key (the caller). */
  users: JsonRecord[];
  /** Pending team invitations, with their join token. */
  invitations: JsonRecord[];
  /** RBAC roles (enterprise edition): the predefined ones and the team's own. */
  roles: JsonRecord[];
  /** The role id new users get (enterprise edition); null: none set. */
  defaultUserRole: string | null;
  /** Stored with the write-only `password`; output strips it. */
  connections: JsonRecord[];
  sources: JsonRecord[];
  dashboards: JsonRecord[];
  alerts: JsonRecord[];
  /** Stored with the write-only `headers`/`queryParams`; output strips them. */
  webhooks: JsonRecord[];
  savedSearches: JsonRecord[];
}

export const DEFAULT_TEAM_NAME = 'Sandbox team';

export const SNAPSHOT_FORMAT = 'obsync-sandbox-observability/1';

const row = z.looseObject({ id: z.string().min(1) });
const snapshotSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.number().int().min(0),
  state: z.object({
    teamId: z.string().min(1),
    // Added after the first snapshot format: older files have no team name, users or invitations.
    teamName: z.string().default(DEFAULT_TEAM_NAME),
    users: z.array(row).default([]),
    invitations: z.array(row).default([]),
    roles: z.array(row).default([]),
    defaultUserRole: z.string().nullable().default(null),
    connections: z.array(row),
    sources: z.array(row),
    dashboards: z.array(row),
    alerts: z.array(row),
    webhooks: z.array(row),
    savedSearches: z.array(row),
  }),
});

/** An empty team with its one member, who owns the team's API key. */
export function emptyState(teamId: string, user: JsonRecord, teamName = DEFAULT_TEAM_NAME): DomainState {
  return {
    teamId,
    teamName,
    users: [user],
    invitations: [],
    roles: [],
    defaultUserRole: null,
    connections: [],
    sources: [],
    dashboards: [],
    alerts: [],
    webhooks: [],
    savedSearches: [],
  };
}

export class Store {
  private current: DomainState;
  private committed = 0;

  constructor(
    initial: DomainState,
    readonly now: () => Date,
    version = 0,
  ) {
    this.current = freezeRows(initial);
    this.committed = version;
  }

  get state(): Readonly<DomainState> {
    return this.current;
  }

  get version(): number {
    return this.committed;
  }

  newId(): string {
    return newObjectId(this.now());
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  /**
   * Replace some collections at once; the only way the state changes. Rows enter the state as
   * frozen deep copies, so a caller's objects never alias it and rows already in it (frozen)
   * are kept as they are: a write costs its own rows, not a copy of the whole collection.
   */
  commit(changes: Partial<DomainState>): void {
    const next = { ...this.current };
    for (const key of Object.keys(changes) as (keyof DomainState)[]) {
      if (key === 'teamId' || key === 'teamName') next[key] = changes[key] ?? next[key];
      else if (key === 'defaultUserRole') next.defaultUserRole = changes.defaultUserRole ?? null;
      else {
        const rows = changes[key];
        if (rows) next[key] = rows.map((row) => (Object.isFrozen(row) ? row : deepFreeze(structuredClone(row))));
      }
    }
    this.current = next;
    this.committed += 1;
  }

  snapshot(): JsonRecord {
    const state = structuredClone(this.current) as unknown as { [k: string]: JsonValue };
    return { format: SNAPSHOT_FORMAT, version: this.committed, state };
  }

  static restore(snapshot: JsonRecord, now: () => Date): Store {
    const parsed = snapshotSchema.safeParse(snapshot);
    if (!parsed.success) {
      throw new Error(`Sandbox snapshot is not a ${SNAPSHOT_FORMAT} document: ${z.prettifyError(parsed.error)}`);
    }
    const state = structuredClone(parsed.data.state) as unknown as DomainState;
    return new Store(state, now, parsed.data.version);
  }
}

function freezeRows(state: DomainState): DomainState {
  const { teamId, teamName, defaultUserRole, ...collections } = state;
  for (const rows of Object.values(collections)) rows.forEach(deepFreeze);
  return { teamId, teamName, defaultUserRole, ...collections };
}

export function findById(rows: readonly JsonRecord[], id: string): JsonRecord | undefined {
  return rows.find((r) => r.id === id);
}
