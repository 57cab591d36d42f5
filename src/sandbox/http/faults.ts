/**
 * Fault injection for tests and soak runs: latency, 5xx, 429 bursts, resets before/after the
 * write, idle 424, and lists that leave out objects a GET by id still finds.
 */
export interface FaultSpec {
  latencyMs?: number;
  /** Probability (0..1) of a 503 that changes nothing. */
  error5xx?: number;
  /** The next N requests get a 429. */
  burst429?: number;
  /** Probability of dropping the connection before handling (nothing changes). */
  resetBefore?: number;
  /** Probability of handling the request (the write commits) and then dropping the connection unanswered. */
  resetAfter?: number;
  /** Probability that the service idles before a hosted pipes request (then 424 until a client wakes it). */
  idle424?: number;
  /** Probability that a list leaves out each of its objects (a GET by id still finds them): a list that lies by omission. */
  listOmit?: number;
  /** Seed of the PRNG (deterministic runs). */
  seed?: number;
}

const KEYS: Record<string, keyof FaultSpec> = {
  latency: 'latencyMs',
  latencyMs: 'latencyMs',
  error5xx: 'error5xx',
  burst429: 'burst429',
  resetBefore: 'resetBefore',
  resetAfter: 'resetAfter',
  idle424: 'idle424',
  listOmit: 'listOmit',
  seed: 'seed',
};

/** `latency=50,error5xx=0.1,burst429=3,resetBefore=0.05,resetAfter=0.05,idle424=1,listOmit=0.3,seed=7` */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=');
    const key = name === undefined ? undefined : KEYS[name];
    const n = Number(value);
    if (!key) throw new Error(`unknown fault '${name ?? part}' (known: ${Object.keys(KEYS).join(', ')})`);
    if (value === undefined || !Number.isFinite(n) || n < 0) throw new Error(`fault '${name}' needs a number ≥ 0`);
    if (['error5xx', 'resetBefore', 'resetAfter', 'idle424', 'listOmit'].includes(key) && n > 1)
      throw new Error(`fault '${name}' is a probability (0..1)`);
    spec[key] = n;
  }
  return spec;
}

/** mulberry32: small, seedable. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type FaultDecision = 'none' | 'error5xx' | 'burst429' | 'resetBefore' | 'resetAfter' | 'idle424' | 'listOmit';

export class Faults {
  #spec: FaultSpec = {};
  #random: () => number = Math.random;
  #burstLeft = 0;
  /** Faults injected so far, by kind. */
  readonly injected: Record<Exclude<FaultDecision, 'none'>, number> = {
    error5xx: 0,
    burst429: 0,
    resetBefore: 0,
    resetAfter: 0,
    idle424: 0,
    listOmit: 0,
  };

  set(spec: FaultSpec): void {
    this.#spec = { ...spec };
    this.#random = spec.seed === undefined ? Math.random : prng(spec.seed);
    this.#burstLeft = spec.burst429 ?? 0;
  }

  clear(): void {
    this.set({});
  }

  get latencyMs(): number {
    return this.#spec.latencyMs ?? 0;
  }

  decide(pipesRoute: boolean): FaultDecision {
    const decision = this.#decide(pipesRoute);
    if (decision !== 'none') this.injected[decision] += 1;
    return decision;
  }

  /**
   * A successful list's body with each object left out at the `listOmit` probability (counted
   * per object left out); any other body as it is. Paged lists keep their totals, so a paging
   * client may see the gap as inconsistent paging.
   */
  thinList(body: string): string {
    const p = this.#spec.listOmit ?? 0;
    if (p <= 0) return body;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return body;
    }
    if (typeof parsed !== 'object' || parsed === null) return body;
    const envelope = parsed as Record<string, unknown>;
    const key = Array.isArray(envelope.data) ? 'data' : Array.isArray(envelope.result) ? 'result' : undefined;
    const items = key === undefined ? undefined : (envelope[key] as unknown[]);
    if (key === undefined || !items) return body;
    const kept = items.filter(() => {
      const omit = this.#random() < p;
      if (omit) this.injected.listOmit += 1;
      return !omit;
    });
    return JSON.stringify({ ...envelope, [key]: kept });
  }

  #decide(pipesRoute: boolean): FaultDecision {
    if (this.#burstLeft > 0) {
      this.#burstLeft -= 1;
      return 'burst429';
    }
    const s = this.#spec;
    if (pipesRoute && (s.idle424 ?? 0) > 0 && this.#random() < (s.idle424 ?? 0)) return 'idle424';
    if ((s.resetBefore ?? 0) > 0 && this.#random() < (s.resetBefore ?? 0)) return 'resetBefore';
    if ((s.error5xx ?? 0) > 0 && this.#random() < (s.error5xx ?? 0)) return 'error5xx';
    if ((s.resetAfter ?? 0) > 0 && this.#random() < (s.resetAfter ?? 0)) return 'resetAfter';
    return 'none';
  }
}
