/**
 * A minimal client for a child's inspector (started with --inspect=127.0.0.1:0): forces a full
 * garbage collection and reads the heap left, which is the only honest figure for a leak check.
 * Sampling heap from /metrics between runs mostly measures when V8 last chose to collect.
 */
import { WebSocket } from 'undici';
import type { ProfileNode } from './profile.js';

const LISTENING = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/;

export function inspectorUrl(stderr: string): string | undefined {
  return LISTENING.exec(stderr)?.[1];
}

export interface Inspector {
  heapAfterGc(): Promise<number>;
  /** Starts the V8 CPU profiler (sampling every 200 µs). */
  startProfile(): Promise<void>;
  /** Stops it: the profile since startProfile (a .cpuprofile document). */
  stopProfile(): Promise<{ nodes: ProfileNode[] }>;
  close(): void;
}

export async function connectInspector(url: string): Promise<Inspector> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`bench: cannot reach the inspector at ${url}`)), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, (result) => {
        waiting.delete(id);
        resolve(result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      const result = (await call('Runtime.getHeapUsage')) as { usedSize?: number };
      if (typeof result.usedSize !== 'number') throw new Error('bench: the inspector returned no heap usage');
      return result.usedSize;
    },
    async startProfile() {
      await call('Profiler.enable');
      await call('Profiler.setSamplingInterval', { interval: 200 });
      await call('Profiler.start');
    },
    async stopProfile() {
      const result = (await call('Profiler.stop')) as { profile?: { nodes?: ProfileNode[] } };
      if (!Array.isArray(result.profile?.nodes)) throw new Error('bench: the inspector returned no profile');
      return result.profile as { nodes: ProfileNode[] };
    },
    close: () => socket.close(),
  };
}
