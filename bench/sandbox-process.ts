/** Starts bench/sandbox-child.js as a child process and talks to it over IPC. */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { InventoryEntry } from '../src/core/inventory.js';
import type { Credentials } from '../src/sandbox/http/handlers.js';
import type { LoggedRequest } from '../src/sandbox/http/server.js';
import type { ChildOptions, ChildRequest } from './sandbox-child.js';

export interface ChildSandbox {
  url: string;
  /** The child's process id (for the CPU it spends serving). */
  pid: number;
  credentials: Credentials;
  /** The sandbox's data directory (also a scratch directory for backups). */
  dir: string;
  /**
   * What seeding the estate recorded: an inventory that owns every object the child created.
   * Handed over once (later calls answer none), so the bench does not hold a second copy of the
   * inventory beside the store it builds from it: that copy would count in the measures' RSS.
   */
  takeInventory(): InventoryEntry[];
  requests(): Promise<LoggedRequest[]>;
  clear(): Promise<void>;
  close(): Promise<void>;
}

type Reply =
  | { type: 'ready'; url: string; credentials: Credentials; dir: string; inventory: InventoryEntry[] }
  | { type: 'requests'; log: LoggedRequest[] }
  | { type: 'cleared' };

export async function startChildSandbox(opts: ChildOptions): Promise<ChildSandbox> {
  const child = fork(join(import.meta.dirname, 'sandbox-child.js'), [JSON.stringify(opts)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <K extends Reply['type']>(type: K, request?: ChildRequest) =>
    new Promise<Extract<Reply, { type: K }>>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as Extract<Reply, { type: K }>);
      };
      const onExit = (code: number | null) => reject(new Error(`bench sandbox exited (${code}) before answering ${type}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (request) child.send(request);
    });
  const ready = await next('ready');
  let seeded: InventoryEntry[] = ready.inventory;
  return {
    url: ready.url,
    pid: child.pid ?? -1,
    credentials: ready.credentials,
    dir: ready.dir,
    takeInventory: () => {
      const entries = seeded;
      seeded = [];
      return entries;
    },
    requests: async () => (await next('requests', { type: 'requests' })).log,
    clear: async () => void (await next('cleared', { type: 'clear' })),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ type: 'close' } satisfies ChildRequest);
      }),
  };
}
