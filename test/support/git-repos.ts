/**
 * Real Git repositories for the write-back tests: a bare "remote" on disk (reached over file://,
 * or over smart HTTP on loopback through `git http-backend`), and clones of it that act as the
 * people and CI pushing concurrently. Every command runs with no system or user configuration.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Someone Else',
  GIT_AUTHOR_EMAIL: 'someone@example.com',
  GIT_COMMITTER_NAME: 'Someone Else',
  GIT_COMMITTER_EMAIL: 'someone@example.com',
  LC_ALL: 'C',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface Remote {
  root: string;
  /** The bare repository. */
  bare: string;
  url: string;
  /** A clone with its own working tree ("someone else"), on main. */
  clone(name: string): string;
  /** Writes, commits and pushes files in a clone (to `branch`, default main). */
  commitFiles(clone: string, files: Record<string, string>, message: string, branch?: string): string;
  /** The commit a branch of the remote is at, undefined when it has none. */
  tip(branch: string): string | undefined;
  /** A file at a branch of the remote. */
  show(branch: string, path: string): string;
  dispose(): void;
}

/** A bare remote whose main holds `files` (one commit). */
export function makeRemote(files: Record<string, string>): Remote {
  const root = mkdtempSync(join(tmpdir(), 'obsync-git-'));
  const bare = join(root, 'remote.git');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  const remote: Remote = {
    root,
    bare,
    url: `file://${bare}`,
    clone(name) {
      const dir = join(root, name);
      git(root, 'clone', '--quiet', bare, dir);
      return dir;
    },
    commitFiles(clone, written, message, branch = 'main') {
      for (const [path, text] of Object.entries(written)) {
        mkdirSync(dirname(join(clone, path)), { recursive: true });
        writeFileSync(join(clone, path), text);
      }
      git(clone, 'add', '-A');
      git(clone, 'commit', '--quiet', '-m', message);
      git(clone, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
      return git(clone, 'rev-parse', 'HEAD');
    },
    tip(branch) {
      try {
        return git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
      } catch {
        return undefined;
      }
    },
    show(branch, path) {
      return execFileSync('git', ['show', `${branch}:${path}`], { cwd: bare, env: GIT_ENV, encoding: 'utf8' });
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
  const seed = join(root, 'seed');
  git(root, 'init', '--quiet', '--initial-branch=main', seed);
  git(seed, 'remote', 'add', 'origin', bare);
  remote.commitFiles(seed, files, 'seed');
  return remote;
}

/**
 * The remote over smart HTTP on loopback (`git http-backend` as CGI): every request must carry
 * `authorization` exactly, else 401. `seen` records each request's Authorization header and URL.
 */
export async function serveOverHttp(
  remote: Remote,
  authorization: string,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push(`${req.headers.authorization ?? '-'} ${req.method} ${url.pathname}`);
    if (req.headers.authorization !== authorization) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: remote.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'obsync',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let sent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (sent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = head.subarray(0, end).toString().split('\r\n');
      const status = Number(/^Status: (\d+)/m.exec(headers.join('\n'))?.[1] ?? 200);
      for (const line of headers) {
        const [name = '', ...value] = line.split(': ');
        if (name.toLowerCase() !== 'status') res.setHeader(name, value.join(': '));
      }
      res.writeHead(status);
      sent = true;
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/remote.git`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
