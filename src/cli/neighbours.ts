/**
 * One service, one owner (issue 53, item 6): before each run, import or export --adopt, a target
 * reads the inventories of the other declared targets on its service (and of those whose service
 * cannot be told here), so that nothing one of them owns is taken over (core/owners-elsewhere.ts).
 */
import { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { TargetIdentity } from '../core/target.js';
import { identityService, neighbours, type DeclaredService } from '../config/services.js';
import type { StateBackend } from '../inventory/backend.js';

/** Reads, when called, what the other targets on this target's service own now. */
export function ownersElsewhereReader(
  state: StateBackend,
  identity: TargetIdentity,
  embedded: boolean,
  declared: ReadonlyMap<string, DeclaredService>,
): () => Promise<OwnersElsewhere> {
  const { same, maybe } = neighbours(identity.name, identityService(identity, embedded), declared);
  const others = [...same.map((target) => ({ target, maybe: false })), ...maybe.map((target) => ({ target, maybe: true }))];
  if (others.length === 0) return () => Promise.resolve(OwnersElsewhere.NONE);
  return async () =>
    new OwnersElsewhere(
      identity.name,
      await Promise.all(
        others.map(async ({ target, maybe: unsure }) => ({
          target,
          maybe: unsure,
          entries: (await state.records(target)).records.map((r) => r.entry),
        })),
      ),
    );
}
