/**
 * Who holds a lease, and whether a holder on this machine is certainly gone: same host name,
 * same PID namespace, and no such process. Only then may a lease be taken before it expires
 * (a killed `obsync apply` is replaced at once); any other holder is judged by the expiry alone.
 */
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface HolderIdentity {
  pid: number;
  host: string;
  /** Linux PID namespace, e.g. `pid:[4026531836]`; absent elsewhere. */
  pidns?: string | undefined;
}

export function thisHolder(): HolderIdentity {
  const pidns = pidNamespace();
  return { pid: process.pid, host: hostname(), ...(pidns ? { pidns } : {}) };
}

/** A PID means the same process only inside one namespace of one host. */
export function holderIsGone(holder: HolderIdentity): boolean {
  return holderState(holder) === 'gone';
}

/** `gone`: a process of this host and PID namespace that no longer exists; `here`: one that does; `unknown`: another host or namespace. */
export function holderState(holder: HolderIdentity): 'gone' | 'here' | 'unknown' {
  const me = thisHolder();
  if (holder.host !== me.host || (holder.pidns ?? undefined) !== me.pidns) return 'unknown';
  if (holder.pid === me.pid) return 'here';
  if (holder.pid <= 0) return 'unknown';
  try {
    process.kill(holder.pid, 0);
    return 'here';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'gone' : 'here';
  }
}

let cachedNamespace: string | undefined | null = null;

function pidNamespace(): string | undefined {
  if (cachedNamespace === null) {
    try {
      cachedNamespace = readlinkSync('/proc/self/ns/pid');
    } catch {
      cachedNamespace = undefined;
    }
  }
  return cachedNamespace;
}
