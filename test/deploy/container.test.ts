/**
 * The container image, as far as it goes without a Docker engine (none on these machines): the
 * Dockerfile's rules (pinned base, non-root numeric user, exec forms, state under the volume), and
 * its stages' steps run for real in temp directories — the same COPYs, the same `npm ci` / build /
 * `npm ci --omit=dev` — then the image's entrypoint started with the image's environment against
 * the sandbox: it reconciles, writes only under the volume, answers the healthcheck and exits on SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { httpStatus, sandboxDashboards, until } from '../support/wait.js';
import { parseObsyncArgs } from './cli-args.js';
import { npmChildEnv } from './npm-env.js';
import { copyArgs, envPairs, execForm, last, parseDockerfile, type Stage } from './dockerfile.js';

const REPO = process.cwd();
const stages = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
const image = stages.at(-1) as Stage;
const imageEnv = Object.fromEntries(image.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => envPairs(i.args)));
const entrypoint = execForm(last(image, 'ENTRYPOINT')?.args ?? '') ?? [];
const cmd = execForm(last(image, 'CMD')?.args ?? '') ?? [];
const volumes = (last(image, 'VOLUME') ? (execForm(last(image, 'VOLUME')?.args ?? '') ?? []) : []).map((v) => posix.normalize(v));
const under = (path: string, dir: string) => !posix.relative(dir, path).startsWith('..');

/** .dockerignore's patterns, as globs on the path relative to the build context. */
const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '(.*/)?')
          .replace(/\*/g, '[^/]*')}(/.*)?$`,
      ),
  );
const isIgnored = (path: string) => {
  const rel = relative(REPO, path).split('\\').join('/');
  return rel !== '' && ignored.some((re) => re.test(rel));
};

describe('the Dockerfile', () => {
  it('pins every stage to one exact Node 24 version on Alpine, by digest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const images = new Set(stages.map((s) => s.image));
    expect(images.size).toBe(1);
    expect(image.image).toMatch(/^node:24\.\d+\.\d+-alpine\d+\.\d+@sha256:[0-9a-f]{64}$/);
  });

  it('runs as a numeric non-root user, in exec form, with the state and the backups under the volume', () => {
    const user = last(image, 'USER')?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    expect(entrypoint.slice(0, 3)).toEqual(['node', 'dist/cli/main.js', 'run']);
    expect(execForm((last(image, 'HEALTHCHECK')?.args ?? '').replace(/^.*?CMD\s+/, ''))?.[0]).toBe('node');
    expect(stages.flatMap((s) => s.instructions).some((i) => i.keyword === 'ADD')).toBe(false);
    const stateDir = imageEnv.OBSYNC_STATE_DIR ?? '';
    // Backups go inside the state directory (<state>/backups): both must be on the volume.
    expect(volumes.some((v) => under(stateDir, v))).toBe(true);
    expect(stateDir).not.toBe('/');
  });

  it('starts a command line the CLI accepts', async () => {
    expect((await parseObsyncArgs([...entrypoint.slice(2), ...cmd])).command).toBe('run');
  });

  it('installs the runtime dependencies with `npm ci --omit=dev`, and copies only files that exist and are not ignored', () => {
    expect(stages.flatMap((s) => s.instructions).some((i) => i.keyword === 'RUN' && /^npm ci --omit=dev\b/.test(i.args))).toBe(true);
    for (const copy of stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY')
      .map((i) => copyArgs(i.args))) {
      if (copy.from !== undefined) continue;
      for (const source of copy.sources) {
        expect(existsSync(join(REPO, source)), `COPY ${source}`).toBe(true);
        expect(isIgnored(join(REPO, source)), `COPY ${source} is excluded by .dockerignore`).toBe(false);
      }
    }
  });
});

describe('the image, built and run without Docker', () => {
  let root: string;
  const stageRoot = (name: string) => join(root, `stage-${name}`);
  /** An absolute path inside a stage's file system. */
  const inside = (stage: string, path: string) => join(stageRoot(stage), path);
  let imageRoot: string;
  let sandbox: SandboxHandle;
  let daemon: ChildProcess | undefined;
  let output = '';

  function copyInto(from: string, to: string): void {
    if (statSync(from).isDirectory()) cpSync(from, to, { recursive: true, filter: (p) => !isIgnored(p) });
    else {
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to);
    }
  }

  /** Runs one stage's instructions on the host: COPY as copies, RUN npm … as commands, the rest checked. */
  function buildStage(stage: Stage): void {
    let workdir = '/';
    const env: Record<string, string> = {};
    mkdirSync(stageRoot(stage.name), { recursive: true });
    for (const ins of stage.instructions) {
      const here = () => inside(stage.name, workdir);
      if (ins.keyword === 'WORKDIR') {
        workdir = posix.resolve(workdir, ins.args);
        mkdirSync(here(), { recursive: true });
      } else if (ins.keyword === 'ENV') Object.assign(env, Object.fromEntries(envPairs(ins.args)));
      else if (ins.keyword === 'COPY') {
        const { from, sources, dest } = copyArgs(ins.args);
        const target = isAbsolute(dest) ? inside(stage.name, dest) : join(here(), dest);
        for (const source of sources) {
          const origin = from === undefined ? join(REPO, source) : inside(from, source);
          const intoDirectory = dest.endsWith('/') && !statSync(origin).isDirectory();
          copyInto(origin, intoDirectory ? join(target, basename(source)) : target);
        }
      } else if (ins.keyword === 'RUN') {
        if (/^npm /.test(ins.args)) {
          const npmEnv = npmChildEnv(env);
          execFileSync('/bin/sh', ['-c', ins.args], { cwd: here(), env: npmEnv, stdio: 'pipe', timeout: 540_000 });
        } else {
          const mk = /^mkdir -p ((?:\/\S+\s*)+)&& chown \d+:\d+ \S+$/.exec(ins.args);
          if (!mk) throw new Error(`Dockerfile line ${ins.line}: RUN ${ins.args} cannot be replayed without Docker; teach the test`);
          for (const dir of (mk[1] ?? '').trim().split(/\s+/)) mkdirSync(inside(stage.name, dir), { recursive: true });
        }
      } else if (!['USER', 'VOLUME', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT', 'CMD', 'STOPSIGNAL', 'LABEL', 'ARG'].includes(ins.keyword)) {
        throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} is not replayed by the test`);
      }
    }
  }

  /** Every file below `dir`, relative to it. */
  function files(dir: string): string[] {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)));
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'obsync-image-'));
    for (const stage of stages) buildStage(stage);
    imageRoot = stageRoot(image.name);
    sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  }, 600_000);

  afterAll(async () => {
    if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
    await sandbox?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('holds the compiled CLI and only the runtime dependencies', () => {
    expect(existsSync(join(imageRoot, 'app/dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(imageRoot, 'app/node_modules/undici/package.json'))).toBe(true);
    for (const dev of ['typescript', 'vitest', 'eslint']) expect(existsSync(join(imageRoot, 'app/node_modules', dev)), dev).toBe(false);
    expect(existsSync(join(imageRoot, 'app/src'))).toBe(false);
    const help = execFileSync(process.execPath, ['dist/cli/main.js', '--help'], {
      cwd: join(imageRoot, 'app'),
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    }).toString();
    expect(help).toMatch(/Usage: obsync/);
  });

  it('reconciles with the image environment, writes only under the volume, is healthy, and exits on SIGTERM', async () => {
    const manifests = inside(image.name, cmd[0] ?? '/manifests');
    cpSync(join(REPO, 'config-examples/team/dashboards'), manifests, { recursive: true });
    writeFileSync(
      join(manifests, 'obsync.yaml'),
      `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandbox.url}", rateLimit: {requests: 1000, perSeconds: 1}}\n`,
    );
    const before = new Set(files(imageRoot));
    // The image's environment, its absolute paths moved into the stage. `--listen` on the command
    // line, as `docker run IMAGE --listen …` gives it: the test listens on loopback only, on a port
    // the system picks, not where the image's OBSYNC_LISTEN says.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', OBSYNC_API_KEY: sandbox.credentials.apiKey };
    for (const [k, v] of Object.entries(imageEnv)) env[k] = v.startsWith('/') ? inside(image.name, v) : v;
    const args = [...entrypoint.slice(1), ...cmd.map((a) => (a.startsWith('/') ? inside(image.name, a) : a)), '--listen', '127.0.0.1:0'];
    daemon = spawn(process.execPath, args, { cwd: join(imageRoot, 'app'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    daemon.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const context = () => output.slice(-4000);
    const served = await until('the served address', () => /health and metrics on (http:\/\/\S+?)\/?$/m.exec(output)?.[1], {
      context,
    });

    await until('ready after the first run', async () => ((await httpStatus(`${served}/readyz`)) === 200 ? true : undefined), {
      context,
    });
    expect((await sandboxDashboards(sandbox)).map((d) => d.name)).toContain('Checkout service');
    // The HEALTHCHECK's command: exit 0 while /livez answers at the address the process serves,
    // which is neither OBSYNC_LISTEN's nor a fixed one (execFileSync throws on any other exit).
    expect(imageEnv.OBSYNC_LISTEN).not.toBe(served.replace('http://', ''));
    const healthcheck = () => execFileSync(process.execPath, ['dist/cli/healthcheck.js'], { cwd: join(imageRoot, 'app'), env });
    expect(healthcheck).not.toThrow();
    expect(readFileSync(env.OBSYNC_URL_OUT ?? '', 'utf8')).toBe(`${served}\n`);

    const stateDir = imageEnv.OBSYNC_STATE_DIR ?? '';
    const written = files(imageRoot).filter((f) => !before.has(f));
    expect(written.length).toBeGreaterThan(0);
    const outside = written.filter((f) => !volumes.some((v) => under(`/${f.split('\\').join('/')}`, v)));
    expect(outside, 'files written outside the volume (a read-only root file system would refuse them)').toEqual([]);
    expect(written.some((f) => under(`/${f}`, stateDir))).toBe(true);

    daemon.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => daemon?.once('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(output).toMatch(/SIGTERM received, shutting down/);
    // Stopped: the record of the address is gone with the process.
    expect(existsSync(env.OBSYNC_URL_OUT ?? ''), 'OBSYNC_URL_OUT removed at exit').toBe(false);
  });
});
