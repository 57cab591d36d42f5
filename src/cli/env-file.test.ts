import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withEnvFile } from './env-file.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A working directory with a project folder beside it: `work/` and `project/obsync.yaml`. */
function layout(files: Record<string, string>): { cwd: string; config: string } {
  dir = mkdtempSync(join(tmpdir(), 'obsync-env-file-'));
  mkdirSync(join(dir, 'work'));
  mkdirSync(join(dir, 'project'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return { cwd: join(dir, 'work'), config: join(dir, 'project', 'obsync.yaml') };
}

describe('withEnvFile', () => {
  it('reads .env beside the obsync.yaml in use, under the working directory’s .env, under the environment', () => {
    const { cwd, config } = layout({ 'project/.env': 'A=project\nB=project\nC=project\n', 'work/.env': 'B=work\nC=work\n' });
    expect(withEnvFile({ C: 'env' }, cwd, undefined, config)).toEqual({ A: 'project', B: 'work', C: 'env' });
    expect(withEnvFile({}, join(dir, 'project'), undefined, config)).toEqual({ A: 'project', B: 'project', C: 'project' });
  });

  it('reads only the working directory’s .env without a config, and returns the environment itself with no file', () => {
    const { cwd, config } = layout({ 'work/.env': 'B=work\n' });
    expect(withEnvFile({}, cwd, undefined, undefined)).toEqual({ B: 'work' });
    const env = { X: '1' };
    expect(withEnvFile(env, join(dir, 'project'), undefined, config)).toBe(env);
  });

  it('--dotenv FILE replaces both files, and must be readable', () => {
    const { cwd, config } = layout({ 'project/.env': 'A=project\n', 'work/.env': 'B=work\n', 'work/other.env': 'C=other\n' });
    expect(withEnvFile({}, cwd, 'other.env', config)).toEqual({ C: 'other' });
    expect(() => withEnvFile({}, cwd, 'nope.env', config)).toThrow(/--dotenv nope\.env cannot be read/);
  });

  it('a .env beside the config that cannot be read is an error naming it', () => {
    const { cwd, config } = layout({});
    mkdirSync(join(dir, 'project', '.env'));
    expect(() => withEnvFile({}, cwd, undefined, config)).toThrow(/^\.\.\/project\/\.env cannot be read: .*not a regular file/);
  });
});
