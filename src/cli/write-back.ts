/**
 * `obsync run`'s write-back of one target (issue 41): its `drift:` setting and, with `propose`,
 * the WriteBack the daemon hands held drift to — the target's proposer (its own clone under the
 * state directory, the forge its settings name), the manifests read from disk, and the other
 * targets that read a document too — of this process, or declared and not run by it (a document
 * several targets read is edited only when they all ask the same).
 */
import { dirname, resolve } from 'node:path';
import type { ObsyncConfig } from '../config/schema.js';
import { effectiveDrift, resolveWriteBack } from '../config/write-back.js';
import type { DriftMode } from '../config/write-back-schema.js';
import { WriteBack } from '../daemon/write-back.js';
import { readRegularFile } from '../manifests/files.js';
import { proposerFor } from '../proposals/index.js';
import { documentKey } from '../writeback/proposals.js';
import { parseUnmanagedSelector } from '../writeback/selector.js';
import type { CliIO } from './io.js';
import { newManifestsDir } from './new-manifests-dir.js';
import { readersElsewhere, type TargetElsewhere } from './targets-elsewhere.js';
import { proxyFromEnv } from './network.js';
import type { Session } from './session-types.js';

export interface TargetWriteBack {
  drift: DriftMode | undefined;
  writeBack?: WriteBack;
  dispose(): Promise<void>;
}

/** `elsewhere`: declared targets this process does not run; a manifest they read is not the proposal's alone to edit. */
export function targetWriteBack(
  io: CliIO,
  config: ObsyncConfig | undefined,
  session: Session,
  all: readonly Session[],
  elsewhere: readonly TargetElsewhere[],
): TargetWriteBack {
  const name = session.port.target;
  const target = config?.targets?.find((t) => t.name === name);
  const drift = target ? effectiveDrift(target, config?.defaults) : config?.defaults?.drift;
  if (drift !== 'propose') return { drift, dispose: () => Promise.resolve() };
  const baseDir = session.configPath ? dirname(resolve(io.cwd, session.configPath)) : resolve(io.cwd);
  const settings = resolveWriteBack({
    target: target ?? { name },
    defaults: config?.defaults,
    env: io.env,
    readFile: (path) => readRegularFile(path),
    stateDir: resolve(io.cwd, session.stateDir),
    baseDir,
  });
  const { proposer, dispose } = proposerFor(settings, { path: io.env.PATH, home: io.env.HOME, proxy: proxyFromEnv(io.env) });
  const others = all.filter((s) => s !== session);
  const writeBack = new WriteBack(
    {
      proposer,
      root: baseDir,
      read: readText,
      maxAgeMs: settings.proposalMaxAgeMs,
      otherReaders: () => readersOf(others, readersElsewhere(elsewhere)),
      ...(settings.include === undefined
        ? {}
        : { include: { rule: parseUnmanagedSelector(settings.include), dir: newManifestsDir(session) } }),
    },
    () => new Date(),
  );
  return { drift, writeBack, dispose };
}

/** Per document, the other targets whose manifests declare it (read afresh: the files may have changed). */
function readersOf(others: readonly Session[], notRun: (file: string) => string[]): (file: string, line: number) => readonly string[] {
  const readers = new Map<string, string[]>();
  for (const o of others)
    for (const r of o.reload().desired) {
      const key = documentKey(r.source.file, r.source.line);
      readers.set(key, [...(readers.get(key) ?? []), o.port.target]);
    }
  return (file, line) => [...(readers.get(documentKey(file, line)) ?? []), ...notRun(file)];
}

function readText(path: string): string | undefined {
  try {
    return readRegularFile(path);
  } catch {
    return undefined;
  }
}
