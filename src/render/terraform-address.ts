/**
 * What makes the JSON plan readable by the tools written for `terraform show -json`
 * (HashiCorp's terraform-json, jq gates in CI, policy engines): Terraform's plan format version,
 * each target as a module call of the root module (`module.<name>`, Terraform's grammar), each
 * object as a managed resource of that module (`module.<name>.<Kind>.<name>`, type = kind, name =
 * metadata.name), and the `after_unknown` shape Terraform prints for a value known at plan time.
 * Every address of the document is made (and its schema's pattern built) here.
 */
import type { Address } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import { isJsonObject, setOwn } from '../core/json.js';

/**
 * Terraform's JSON plan format version the document follows. 0.1 is the one version every
 * terraform-json release accepts: the early ones (Debian's 0.5.0) demand exactly "0.1", the
 * current ones (v0.28.0) accept ">= 0.1, < 2.0". Every field obsync fills exists in that format
 * or is ignored by its readers (resource_drift, previous_address, importing came later and are
 * read by any release that knows them).
 */
export const TERRAFORM_PLAN_FORMAT_VERSION = '0.1';

/** The module address of a target, as Terraform's grammar addresses a module call: `module.prod`. */
export function moduleAddress(target: string): string {
  return `module.${target}`;
}

/** `Dashboard.checkout` for Dashboard/checkout: the address within its module (as a configuration's resources are addressed). */
export function localAddress(address: Address): string {
  const slash = address.indexOf('/');
  return `${address.slice(0, slash)}.${address.slice(slash + 1)}`;
}

/** `module.prod.Dashboard.checkout` for Dashboard/checkout of target prod (names never hold a dot or a slash). */
export function resourceAddress(target: string, address: Address): string {
  return `${moduleAddress(target)}.${localAddress(address)}`;
}

/** The pattern of every absolute address `resourceAddress` makes, for the kinds given (the plan schema's). */
export function resourceAddressPattern(kinds: readonly string[]): RegExp {
  return new RegExp(String.raw`^module\.[^.\s]+\.(${kinds.join('|')})\.[^.\s]+$`);
}

/** The provider configuration a target's objects use: opaque to readers, one per target (`prod:obsync`). */
export function providerConfigKey(target: string): string {
  return `${target}:obsync`;
}

/** The "provider" of a target's objects: its API variant, as terraform-json's provider_name. */
export function providerName(variant: string): string {
  return `obsync/${variant}`;
}

/**
 * Terraform's `after_unknown` for a value entirely known at plan time (its `unknownAsBool`):
 * null and scalars are false, an array maps its items, an object keeps only the entries that are
 * not false. obsync's `after` forms hold no value the service computes (ids are not part of
 * them, references are by name), so nothing in them is unknown.
 */
export function knownAfterUnknown(value: Json): Json {
  if (Array.isArray(value)) return value.map(knownAfterUnknown);
  if (isJsonObject(value)) {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      const shape = knownAfterUnknown(item);
      if (shape !== false) setOwn(out, key, shape);
    }
    return out;
  }
  return false;
}
