/** Fault injection for tests and soak runs: latency, 5xx, 429 bursts, resets before/after the write, idle 424. */
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
  seed: 'seed',
};

/** `latency=50,error5xx=0.1,burst429=3,resetBefore=0.05,resetAfter=0.05,idle424=1,seed=7` */
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
    if (['error5xx', 'resetBefore', 'resetAfter', 'idle424'].includes(key) && n > 1)
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

export type FaultDecision = 'none' | 'error5xx' | 'burst429' | 'resetBefore' | 'resetAfter' | 'idle424';

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
