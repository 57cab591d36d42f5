/** Fixed-window request limits per key, like express-rate-limit (self-hosted) and the hosted gateway. */
export interface Limit {
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class FixedWindowLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly rule: Limit | null,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get enabled(): boolean {
    return this.rule !== null;
  }

  hit(key: string): LimitDecision {
    if (!this.rule) return { allowed: true, limit: 0, remaining: 0, resetSeconds: 0 };
    const now = this.now();
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.rule.windowMs };
      this.#windows.set(key, w);
    }
    w.count += 1;
    return {
      allowed: w.count <= this.rule.limit,
      limit: this.rule.limit,
      remaining: Math.max(0, this.rule.limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.resetAt - now) / 1000)),
    };
  }
}
