/**
 * Which API variants serve each manifest kind (DESIGN §1): a target of another variant cannot
 * manage it, and `validate` says so, naming the target, the kind and the file.
 */
import type { Kind } from '../core/plan.js';
import type { Variant } from '../core/ports.js';

const BOTH: readonly Variant[] = ['hosted', 'self-hosted'];

const SERVED_BY: Record<Kind, readonly Variant[]> = {
  Dashboard: BOTH,
  Alert: BOTH,
  // Pipes are a hosted capability (hosted-api §3); the self-hosted API has none.
  Pipe: ['hosted'],
};

export function variantsServing(kind: Kind): readonly Variant[] {
  return SERVED_BY[kind];
}

export function servesKind(variant: Variant, kind: Kind): boolean {
  return SERVED_BY[kind].includes(variant);
}
