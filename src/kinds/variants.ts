/**
 * Which API variants serve each manifest kind (DESIGN §1), from the routes each kind declares
 * in the registry: a target of another variant cannot manage it, and `validate` says so,
 * naming the target, the kind and the file.
 */
import type { Variant } from '../core/ports.js';
import { definitionOf, type Kind } from './registry.js';

const VARIANTS: readonly Variant[] = ['hosted', 'self-hosted'];

export function variantsServing(kind: Kind): readonly Variant[] {
  const routes = definitionOf(kind).routes;
  return VARIANTS.filter((v) => routes[v] !== undefined);
}

export function servesKind(variant: Variant, kind: Kind): boolean {
  return definitionOf(kind).routes[variant] !== undefined;
}
