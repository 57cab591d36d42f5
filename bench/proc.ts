/** What /proc says of a process and of the machine (Linux): CPU times and peak RSS, for the measures that run the built CLI as a child. */
import { readFileSync, writeFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc/PID/stat's CPU times (100 on every Linux architecture Node runs on). */
const TICKS_PER_S = 100;

/** User + system CPU of a process so far, in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

/** Busy and total CPU time of the whole machine so far (jiffies, all cores). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) };
}

/** Resets a process's peak RSS (Linux ≥ 4.0); false when the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak RSS (VmHWM) of a process since it started or since its last reset, in MiB. */
export function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Math.round(Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) / 1024);
}
