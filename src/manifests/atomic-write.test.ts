/**
 * Issue 53, item 5: `export --force` under a 4 KiB file-size limit left a truncated manifest that
 * still validated, and plan proposed deleting what it no longer declared. Every write into the
 * project goes through one helper; interrupted at any byte, or at any later step, it leaves the
 * old file or the new one, never a mix, and no temporary file behind.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileWriteError, NODE_WRITE_SYSTEM, writeFileAtomically, writeFilesAtomically, type WriteSystem } from './atomic-write.js';

let root: string;
let round = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'obsync-atomic-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh directory for one case. */
function freshDir(): string {
  const dir = join(root, String((round += 1)));
  mkdirSync(dir);
  return dir;
}

const STEPS = ['write', 'open', 'fchmod', 'fsync', 'close', 'rename', 'link'] as const;
type Fault = { step: 'write'; limit: number } | { step: Exclude<(typeof STEPS)[number], 'write'> };

/**
 * The real calls (less the flushes), but as a file-size limit (RLIMIT_FSIZE) does: each file takes `limit` bytes, then EFBIG; or one step
 * fails outright.
 */
function faulty(fault: Fault | undefined): WriteSystem {
  const size = new Map<number, number>();
  const fail = (step: string) => {
    if (fault?.step === step) throw Object.assign(new Error(`${step} failed`), { code: 'EIO', syscall: step });
  };
  return {
    ...NODE_WRITE_SYSTEM,
    open: (path, flags, mode) => (fail('open'), NODE_WRITE_SYSTEM.open(path, flags, mode)),
    write(fd, data, offset, length) {
      if (fault?.step !== 'write') return writeSync(fd, data, offset, length);
      const room = fault.limit - (size.get(fd) ?? 0);
      if (room <= 0) throw Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG', syscall: 'write' });
      const n = writeSync(fd, data, offset, Math.min(length, room));
      size.set(fd, (size.get(fd) ?? 0) + n);
      return n;
    },
    fchmod: (fd, mode) => (fail('fchmod'), NODE_WRITE_SYSTEM.fchmod(fd, mode)),
    // Flushes to the disk cost milliseconds each and change no content: failed when asked, skipped otherwise.
    fsync: () => fail('fsync'),
    syncDirectory: () => undefined,
    close: (fd) => (fail('close'), NODE_WRITE_SYSTEM.close(fd)),
    rename: (from, to) => (fail('rename'), NODE_WRITE_SYSTEM.rename(from, to)),
    link: (from, to) => (fail('link'), NODE_WRITE_SYSTEM.link(from, to)),
  };
}

const content = fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b));
const fault: fc.Arbitrary<Fault | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.nat({ max: 700 }).map((limit) => ({ step: 'write' as const, limit })),
  fc.constantFrom(...STEPS.filter((s) => s !== 'write')).map((step): Fault => ({ step })),
);

/** What a case left: the file's bytes (undefined: no file) and every other name in the folder. */
function leftIn(dir: string, file: string): { bytes: Buffer | undefined; others: string[] } {
  const path = join(dir, file);
  return { bytes: existsSync(path) ? readFileSync(path) : undefined, others: readdirSync(dir).filter((n) => n !== file) };
}

describe('writeFileAtomically', () => {
  it('interrupted at any byte or step, leaves the old file or the new one, never a mix, and no temporary file', () => {
    fc.assert(
      fc.property(fc.option(content, { nil: undefined }), content, fault, fc.boolean(), (old, next, f, create) => {
        const dir = freshDir();
        const path = join(dir, 'd.yaml');
        if (old) writeFileSync(path, old);
        let error: unknown;
        try {
          writeFileAtomically(path, next, { system: faulty(f), existing: create ? 'create' : 'replace' });
        } catch (err) {
          error = err;
        }
        const { bytes, others } = leftIn(dir, 'd.yaml');
        expect(others).toEqual([]);
        if (error === undefined) {
          expect(bytes).toEqual(next);
          return;
        }
        expect(error).toBeInstanceOf(FileWriteError);
        expect((error as Error).message).toContain(`cannot write ${path}: `);
        expect(bytes).toEqual(old);
        expect((error as Error).message).toContain(old ? `${path} is unchanged` : 'nothing was written there');
      }),
      { numRuns: 150 },
    );
  });

  it('under a file-size limit at every byte offset of a file: the old file stays whole until the new one fits', () => {
    const dir = freshDir();
    const path = join(dir, 'tiles.yaml');
    const old = Buffer.from('kind: Dashboard\ntiles: [a, b, c, d, e, f, g, h, i, j, k, l]\n');
    const next = Buffer.from('kind: Dashboard\ntiles: [a, b, c, d, e, f, g, h, i, j, k, l, m, n]\n');
    for (let limit = 0; limit <= next.length; limit++) {
      writeFileSync(path, old);
      const write = () => writeFileAtomically(path, next, { system: faulty({ step: 'write', limit }) });
      if (limit < next.length) expect(write).toThrow(/\(EFBIG\); .* is unchanged$/);
      else write();
      expect(leftIn(dir, 'tiles.yaml')).toEqual({ bytes: limit < next.length ? old : next, others: [] });
    }
  });

  it('keeps the permissions of the file it replaces, and gives a new one the mode asked for', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'kept'), 'old');
    chmodSync(join(dir, 'kept'), 0o640);
    writeFileAtomically(join(dir, 'kept'), 'new');
    writeFileAtomically(join(dir, 'secret'), 'key', { mode: 0o600 });
    expect(statSync(join(dir, 'kept')).mode & 0o777).toBe(0o640);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
  });

  it('neither writes through nor replaces a symbolic link, and refuses a device unless it may write to it as a stream', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'outside'), 'theirs');
    symlinkSync(join(dir, 'outside'), join(dir, 'link.yaml'));
    expect(() => writeFileAtomically(join(dir, 'link.yaml'), 'ours')).toThrow(
      /link\.yaml: it is a symbolic link.*; .*link\.yaml is unchanged$/,
    );
    expect(readFileSync(join(dir, 'outside'), 'utf8')).toBe('theirs');
    expect(readdirSync(dir).sort()).toEqual(['link.yaml', 'outside']);
    expect(() => writeFileAtomically('/dev/null', 'x')).toThrow(
      'cannot write /dev/null: it is a device, not a regular file; /dev/null is unchanged',
    );
    writeFileAtomically('/dev/null', 'x', { streams: 'write' });
  });

  it('creates only: a name taken before or while it writes is refused', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'taken'), 'theirs');
    expect(() => writeFileAtomically(join(dir, 'taken'), 'ours', { existing: 'create' })).toThrow(/already exists \(EEXIST\)/);
    const racing: WriteSystem = {
      ...NODE_WRITE_SYSTEM,
      link: (from, to) => (writeFileSync(to, 'theirs'), NODE_WRITE_SYSTEM.link(from, to)),
    };
    expect(() => writeFileAtomically(join(dir, 'raced'), 'ours', { existing: 'create', system: racing })).toThrow(FileWriteError);
    expect(leftIn(dir, 'raced')).toEqual({ bytes: Buffer.from('theirs'), others: ['taken'] });
  });
});

describe('writeFilesAtomically', () => {
  it('writes every file or none: interrupted anywhere, each file is old, or all are new', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(content, content), { minLength: 1, maxLength: 4 }), fault, (pairs, f) => {
        const dir = freshDir();
        const files = pairs.map(([, next], i) => ({ path: join(dir, `f${i}.yaml`), data: next }));
        pairs.forEach(([old], i) => writeFileSync(join(dir, `f${i}.yaml`), old));
        let failed = false;
        try {
          writeFilesAtomically(files, { system: faulty(f) });
        } catch (err) {
          failed = true;
          expect(err).toBeInstanceOf(FileWriteError);
          if (pairs.length > 1 && f?.step !== 'rename')
            expect((err as Error).message).toContain(`none of the ${pairs.length} files was changed`);
        }
        expect(readdirSync(dir).sort()).toEqual(files.map((_, i) => `f${i}.yaml`).sort());
        pairs.forEach(([old, next], i) => expect(readFileSync(join(dir, `f${i}.yaml`))).toEqual(failed ? old : next));
      }),
      { numRuns: 80 },
    );
  });
});
