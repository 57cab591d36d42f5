/**
 * The neighbours of a JSON log stream kept JSON: every line written here reaches `target` as one
 * JSON object — a line that is one already, as it is; any other line as a record of its own in
 * the logger's shape (`{"level","time","msg":"text output","text"}`: a fixed message, the line in
 * a field). obsync run's stdout and stderr pass through it when its logs are JSON, so a collector
 * takes every line as it is, whatever wrote it.
 */
import { Writable } from 'node:stream';

export const TEXT_OUTPUT = 'text output';

/** The line as a JSON object's text (without the newline). */
export function asJsonLine(line: string, now: Date = new Date()): string {
  if (line.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return line;
    } catch {
      // Not JSON after all: wrapped below.
    }
  }
  const level = /^\s*error\b/i.test(line) ? 'error' : /^\s*warn(ing)?\b/i.test(line) ? 'warn' : 'info';
  return JSON.stringify({ level, time: now.toISOString(), msg: TEXT_OUTPUT, text: line });
}

/** A writer whose every line reaches `target` as JSON; a last line without a newline is written at the end. */
export function jsonLines(target: Pick<Writable, 'write'>): Writable & { isTTY?: boolean } {
  let pending = '';
  const emit = (line: string) => {
    if (line.trim() !== '') target.write(`${asJsonLine(line)}\n`);
  };
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) emit(line);
      done();
    },
    final(done) {
      emit(pending);
      pending = '';
      done();
    },
  });
}
