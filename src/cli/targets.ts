/**
 * Running a command on several targets at once (plan, apply): each target in its own session
 * (port, pacer, inventory), at most TARGET_CONCURRENCY at a time, one target's failure never
 * stopping the others.
 */
import { errorMessage, ObsyncError } from '../core/errors.js';
import { printableLines } from '../core/printable.js';
import type { CliIO } from './io.js';
import type { Selection } from '../engine/selection.js';
import { checkSelectionMatches } from './run-options.js';
import type { Session } from './session-types.js';

/** Targets worked on at once; each paces its own requests, so this bounds local work only. */
export const TARGET_CONCURRENCY = 4;

export type Outcome<T> = { session: Session; value: T } | { session: Session; error: unknown; message: string };

/** A counting semaphore: `acquire` waits for a free slot. */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(count: number) {
    this.#free = count;
  }

  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}

/** `work` for every session, `slots` at a time (it may release and re-acquire its slot while it waits); results in session order. */
export async function eachTarget<T>(
  sessions: readonly Session[],
  slots: Slots,
  work: (session: Session) => Promise<T>,
): Promise<Outcome<T>[]> {
  return Promise.all(
    sessions.map(async (session): Promise<Outcome<T>> => {
      await slots.acquire();
      try {
        return { session, value: await work(session) };
      } catch (error) {
        return { session, error, message: errorMessage(error) };
      } finally {
        slots.release();
      }
    }),
  );
}

/**
 * `apply` on several targets asks once: every target plans, then all their plans are shown and
 * approved together (or refused together), then each target applies. A target whose planning
 * failed is counted as arrived, so the others never wait for it.
 */
export class ApprovalGate<P> {
  readonly #arrived: { target: string; plan: P }[] = [];
  readonly #failed: { target: string; error: unknown }[] = [];
  readonly #waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  #decision: Promise<void> | null = null;

  constructor(
    /** Every target, in the order they are shown and asked about (whatever order their plans arrive in). */
    private readonly order: readonly string[],
    private readonly decide: (
      arrived: readonly { target: string; plan: P }[],
      failed: readonly { target: string; error: unknown }[],
    ) => Promise<void>,
  ) {}

  /** Resolves when every target has planned (or failed) and the plans were approved; rejects when they were not. */
  arrive(target: string, plan: P): Promise<void> {
    this.#arrived.push({ target, plan });
    const wait = new Promise<void>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#check();
    return wait;
  }

  fail(target: string, error: unknown): void {
    this.#failed.push({ target, error });
    this.#check();
  }

  #check(): void {
    if (this.#decision || this.#arrived.length + this.#failed.length < this.order.length) return;
    const rank = (t: { target: string }) => this.order.indexOf(t.target);
    this.#decision = this.decide(
      [...this.#arrived].sort((a, b) => rank(a) - rank(b)),
      [...this.#failed].sort((a, b) => rank(a) - rank(b)),
    );
    this.#decision.then(
      () => this.#waiting.forEach((w) => w.resolve()),
      (err: unknown) => this.#waiting.forEach((w) => w.reject(err)),
    );
  }
}

/** `--only` / `--selector` must match something in at least one of the targets. */
export function checkSelectionAcross(selection: Selection, sessions: readonly Session[]): void {
  const [first, ...rest] = sessions;
  if (!first) return;
  // The message of the first target names what it declares; any target that matches will do.
  if (rest.some((s) => matches(selection, s))) return;
  checkSelectionMatches(selection, first.desired, first.inventory.entries());
}

/** A target's failure among several: the others went on. */
export function reportTargetError(io: CliIO, target: string, err: unknown): void {
  io.stderr.write(`${printableLines(`error: target '${target}': ${errorMessage(err)}`)}\n`);
  if (err instanceof ObsyncError && err.hint) io.stderr.write(`${printableLines(`  hint: ${err.hint}`)}\n`);
}

function matches(selection: Selection, s: Session): boolean {
  try {
    checkSelectionMatches(selection, s.desired, s.inventory.entries());
    return true;
  } catch {
    return false;
  }
}
