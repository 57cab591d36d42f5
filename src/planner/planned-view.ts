/**
 * The service as it will be after a plan, as far as the plan knows it: each object's create or
 * update body where the plan writes one, else the live object. References in bodies are ids or
 * placeholders (`{$ref}`, `{$ref, $part}`), resolved through the planner's id map. Read by the
 * predictions after planning (impact, what keeps a delete back, backtests); pure.
 */
import type { IdMap } from '../core/id-map.js';
import type { LiveObject, LiveState } from '../core/live.js';
import { isJsonObject } from '../core/json.js';
import type { Address, AnyKind, PlanStep } from '../core/plan.js';
import type { Json, JsonObject } from '../core/wire.js';

/** A reference read from a body: the id when known, the address when it names a declared object, the part key or id. */
export interface BodyRef {
  id?: string;
  address?: Address;
  partKey?: string;
  partId?: string;
}

export class PlannedView {
  /** The steps by address and by id, made on the first question: a plan of unchanged objects asks none (20,000 entries a plan). */
  #steps: { byAddress: Map<Address, PlanStep>; byId: Map<string, PlanStep> } | undefined;
  readonly #live = new Map<AnyKind, Map<string, LiveObject>>();

  constructor(
    readonly steps: readonly PlanStep[],
    readonly live: LiveState,
    readonly ids: IdMap,
  ) {}

  step(address: Address): PlanStep | undefined {
    return this.#indexed().byAddress.get(address);
  }

  stepOfId(kind: AnyKind, id: string): PlanStep | undefined {
    return this.#indexed().byId.get(`${kind}\u0000${id}`);
  }

  #indexed(): { byAddress: Map<Address, PlanStep>; byId: Map<string, PlanStep> } {
    if (this.#steps) return this.#steps;
    const byAddress = new Map<Address, PlanStep>();
    const byId = new Map<string, PlanStep>();
    for (const s of this.steps) {
      byAddress.set(s.address, s);
      if (s.id !== undefined) byId.set(`${s.kind}\u0000${s.id}`, s);
    }
    this.#steps = { byAddress, byId };
    return this.#steps;
  }

  liveObject(kind: AnyKind, id: string): JsonObject | undefined {
    let index = this.#live.get(kind);
    if (!index) {
      index = new Map((this.live.objects(kind) ?? []).map((o) => [o.id, o]));
      this.#live.set(kind, index);
    }
    return index.get(id) as JsonObject | undefined;
  }

  /** Whether the target serves (and the plan read) objects of a kind. */
  reads(kind: AnyKind): boolean {
    return this.live.objects(kind) !== undefined;
  }

  /** An id, or a placeholder of a declared object (and of one of its parts). */
  ref(value: Json | undefined): BodyRef {
    if (typeof value === 'string') return { id: value };
    if (!isJsonObject(value) || typeof value.$ref !== 'string') return {};
    const address = value.$ref as Address;
    const id = this.ids.id(address);
    const out: BodyRef = { address, ...(id !== undefined ? { id } : {}) };
    if (typeof value.$part === 'string') {
      out.partKey = value.$part;
      const partId = this.ids.partId(address, value.$part);
      if (partId !== undefined) out.partId = partId;
    }
    return out;
  }

  /** The step that writes the referenced object (a create or an update), if the plan has one. */
  writer(kind: AnyKind, ref: BodyRef): PlanStep | undefined {
    const step = ref.address ? this.step(ref.address) : ref.id !== undefined ? this.stepOfId(kind, ref.id) : undefined;
    return step && (step.action === 'create' || step.action === 'update') && step.payload ? step : undefined;
  }

  /** The object after the plan: the body a step writes, else the live object. */
  after(kind: AnyKind, ref: BodyRef): { body: JsonObject; step?: PlanStep } | undefined {
    const step = this.writer(kind, ref);
    if (step?.payload) return { body: step.payload, step };
    const live = ref.id !== undefined ? this.liveObject(kind, ref.id) : undefined;
    return live ? { body: live } : undefined;
  }
}

/** A dashboard body's tile: by key (the step's parts, in body order) or by id. */
export function tileOf(body: JsonObject, step: PlanStep | undefined, partRef: BodyRef): JsonObject | undefined {
  const tiles = Array.isArray(body.tiles) ? body.tiles.filter(isJsonObject) : [];
  const key = partRef.partKey;
  if (step && key !== undefined) {
    const index = (step.parts ?? []).findIndex((p) => p.key === key);
    if (index >= 0) return tiles[index];
  }
  // A part placeholder's `id` is its parent's; a plain string is the tile's own id.
  const id = key !== undefined ? partRef.partId : partRef.id;
  if (id === undefined) return undefined;
  const byId = tiles.find((t) => t.id === id);
  if (byId || !step) return byId;
  const index = (step.parts ?? []).findIndex((p) => p.id === id);
  return index >= 0 ? tiles[index] : undefined;
}
