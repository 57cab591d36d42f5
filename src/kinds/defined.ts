/** Schema outputs may carry optional keys set to undefined; comparable forms and payloads must not. */
import { setOwn } from '../core/json.js';
import type { Json, JsonObject } from '../core/wire.js';

export function definedOnly(value: { readonly [k: string]: Json | undefined } | undefined): JsonObject {
  const out: JsonObject = {};
  for (const k in value) {
    const v = value[k];
    if (v !== undefined) setOwn(out, k, v);
  }
  return out;
}
