/** The error of a writer lease held by someone else, shared by the state backends: who holds it, and what to do. */
import { LockError } from '../core/errors.js';

/** A lease attempt that was refused: who holds it, described, and which obsync command it runs. */
export interface HeldLease {
  heldBy: string;
  /** `run` (the daemon), `apply`, `state rm`… as the holder recorded it. */
  holderCommand?: string | undefined;
}

/** `where`: the lock file, or the database the state is in. */
export function leaseRefusal(target: string, held: HeldLease, where: string): LockError {
  if (held.holderCommand === 'run')
    return new LockError(
      `the state of target '${target}' is held by a running obsync daemon, obsync run (${held.heldBy}) ${where}`,
      'the daemon applies these manifests itself, at start-up, on its schedule and when files change: let it apply them (`obsync ' +
        'plan` shows what it will do), or stop the daemon (Ctrl-C, SIGTERM, `docker stop`, or scale its Deployment to 0) and apply by hand',
    );
  return new LockError(
    `the state of target '${target}' is locked by another obsync (${held.heldBy}) ${where}`,
    'wait for the other run to finish; a holder that died is replaced once its lease expires',
  );
}
