/**
 * The deploy examples' install steps, run for real (they take minutes on a loaded machine: this
 * file runs with `npm run test:slow`, which `npm test` runs once eslint is done).
 *
 * - deploy/github-actions: the install step, on a clean copy of the repository, gives an `obsync`
 *   on the PATH that validates a pull request without secrets.
 * - the Dockerfile: its stages run in temp directories — the same COPYs, `npm ci` / build /
 *   `npm ci --omit=dev` — then the image's entrypoint with the image's environment against the
 *   sandbox: it reconciles, writes only under the volume, answers the healthcheck, exits on SIGTERM.
 *
 * The workflow's `npm ci` copies this checkout's own install when it is made from the same files
 * (NPM_CI_FROM_CHECKOUT below), and that one tree serves both: the image's build stage (`npm ci --ignore-scripts`, then
 * `npm run build`) takes the workflow's installed tree and build, which are exactly what its
 * commands would make when — checked here — the files they read are byte for byte the same and no
 * dependency has an install script (the only difference --ignore-scripts makes). Otherwise, or
 * when the workflow's install failed, the stage runs its commands.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { httpStatus, sandboxDashboards, until, untilListening } from '../support/wait.js';
import { copyArgs, envPairs, type Stage } from './dockerfile.js';
import { cmd, entrypoint, image, imageEnv, isIgnored, REPO, stages, under, volumes } from './image.js';
import { npmChildEnv } from './npm-env.js';
import { CONFIG, apply, plan, workflow } from './workflow.js';

/** The workflow's clean copy of obsync after its install step (node_modules and dist in place), for the image's build stage. */
let installed: string | undefined;
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Every file below `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** The same files with the same bytes (a file or a whole directory). */
function sameFiles(a: string, b: string): boolean {
  if (!existsSync(a) || !existsSync(b)) return false;
  if (!statSync(a).isDirectory()) return !statSync(b).isDirectory() && readFileSync(a).equals(readFileSync(b));
  const list = files(a).sort();
  const other = files(b).sort();
  return list.length === other.length && list.every((f, i) => f === other[i] && readFileSync(join(a, f)).equals(readFileSync(join(b, f))));
}

/**
 * A build-stage command the workflow's install already ran on the same inputs: its result is
 * linked into the stage instead (`cp -al`). Answers whether it was.
 */
function takenFromWorkflow(command: string, dir: string): boolean {
  if (!installed) return false;
  const same = (...names: string[]) => names.every((n) => sameFiles(join(dir, n), join(installed as string, n)));
  const lock = JSON.parse(readFileSync(join(installed, 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { hasInstallScript?: boolean; dev?: boolean }>;
  };
  // The workflow's npm ci runs install scripts, the build stage's does not. A development package's
  // script (the SARIF multitool's chmod of its binary) cannot change what the build stage compiles,
  // and the image's runtime install runs for real: only a production package's script forbids sharing.
  const installScripts = Object.entries(lock.packages ?? {}).filter(([path, p]) => path !== '' && p.hasInstallScript && !p.dev);
  if (
    /^npm ci --ignore-scripts( --no-audit| --no-fund)*$/.test(command) &&
    installScripts.length === 0 &&
    same('package.json', 'package-lock.json', '.npmrc')
  ) {
    execFileSync('cp', ['-al', join(installed, 'node_modules'), join(dir, 'node_modules')]);
    return true;
  }
  if (command === 'npm run build' && same('package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/copy-assets.js', 'src')) {
    execFileSync('cp', ['-al', join(installed, 'dist'), join(dir, 'dist')]);
    return true;
  }
  return false;
}

/**
 * The workflow's `npm ci` on the same package.json, lock and .npmrc as this checkout's own install
 * (which CI has just made on a clean checkout, `npm ci --ignore-scripts`): the tree is linked from it
 * (`cp -al`; the two install scripts, esbuild's and the SARIF multitool's, replace a file by a rename
 * or chmod it, which leaves the checkout's tree as it was), then what npm ci adds to that — the
 * dependencies' install scripts (`npm rebuild`) and this package's `prepare` (the build). An extraction
 * of the 770 MB tree took about 70 s of CPU, a copy of it 25 s; the install itself is
 * what `.ci/run` does, and test/deploy/package-install.test.ts installs the package from a registry.
 */
const NPM_CI_FROM_CHECKOUT = `npm() {
  if [ "$1" = ci ]; then
    cp -al "${join(REPO, 'node_modules')}" node_modules && rm -rf node_modules/.cache &&
      command npm rebuild --no-audit --no-fund && command npm run prepare
  else command npm "$@"; fi
}`;

function sameInstallAsThisCheckout(dir: string): boolean {
  return (
    existsSync(join(REPO, 'node_modules')) &&
    ['package.json', 'package-lock.json', '.npmrc'].every((f) => sameFiles(join(dir, f), join(REPO, f)))
  );
}

describe('the install and validate steps, replayed', () => {
  it('give an `obsync` on the PATH, built from a clean copy of the repository, that validates a pull request without secrets', () => {
    const install = plan.steps.find((s) => s.name === 'Install obsync');
    expect(install?.run).toBeDefined();
    expect(apply.steps.find((s) => s.name === 'Install obsync')?.run).toBe(install?.run);
    const root = mkdtempSync(join(tmpdir(), 'obsync-gha-install-'));
    roots.push(root);
    {
      // What actions/checkout gives: the tracked files (and, while developing, the new ones).
      const tool = join(root, 'workspace', install?.['working-directory'] ?? '.');
      const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO })
        .toString()
        .split('\0')
        .filter(Boolean);
      for (const f of files) {
        mkdirSync(dirname(join(tool, f)), { recursive: true });
        try {
          writeFileSync(join(tool, f), readFileSync(join(REPO, f)));
        } catch {
          // deleted in the worktree but still in the index
        }
      }
      const prefix = join(root, 'npm-global');
      const env = npmChildEnv({ PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, npm_config_prefix: prefix });
      // GitHub runs `run:` with bash -e -o pipefail.
      const script = `${sameInstallAsThisCheckout(tool) ? NPM_CI_FROM_CHECKOUT : ''}\n${install?.run ?? ''}`;
      const out = execFileSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
        cwd: tool,
        env,
        stdio: 'pipe',
        timeout: 540_000,
      }).toString();
      expect(out).toMatch(/^obsync \d+\.\d+\.\d+$/m);
      expect(execFileSync('obsync', ['validate', '--help'], { env }).toString()).toMatch(/Usage: obsync validate/);

      // The user's repository: this example's obsync.yaml at its root, manifests under observability/.
      const workspace = join(root, 'workspace');
      writeFileSync(join(workspace, 'obsync.yaml'), readFileSync(CONFIG));
      cpSync(join(REPO, 'config-examples/team/dashboards'), join(workspace, 'observability'), { recursive: true });
      const validate = plan.steps.find((s) => s.name === 'Validate');
      expect(validate?.env, 'the validate step runs without secrets').toBeUndefined();
      const annotations = execFileSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', validate?.run ?? 'false'], {
        cwd: workspace,
        env: { ...env, ...workflow.env },
        stdio: 'pipe',
      }).toString();
      expect(annotations).not.toMatch(/::error/);
      installed = tool;
    }
  }, 600_000);
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
  /** The build-stage commands whose result came from the workflow's install. */
  const taken: string[] = [];

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
          if (takenFromWorkflow(ins.args, here())) taken.push(ins.args);
          else execFileSync('/bin/sh', ['-c', ins.args], { cwd: here(), env: npmChildEnv(env), stdio: 'pipe', timeout: 540_000 });
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

  it('shares the one full npm ci of this file: the build stage takes the workflow install, made from the same files', () => {
    expect(taken, 'the build stage ran its own npm ci or build: see takenFromWorkflow').toEqual([
      expect.stringMatching(/^npm ci --ignore-scripts/),
      'npm run build',
    ]);
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
      `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: "${sandbox.url}", rateLimit: ` +
        `{requests: 1000, perSeconds: 1}}\n`,
    );
    const before = new Set(files(imageRoot));
    // The image's environment, its absolute paths moved into the stage. `--listen` on the command
    // line, as `docker run IMAGE --listen …` gives it: the test listens on loopback only, on a port
    // the system picks (and the daemon logs), not where the image's OBSYNC_LISTEN says.
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', OBSYNC_API_KEY: sandbox.credentials.apiKey };
    for (const [k, v] of Object.entries(imageEnv)) env[k] = v.startsWith('/') ? inside(image.name, v) : v;
    const args = [...entrypoint.slice(1), ...cmd.map((a) => (a.startsWith('/') ? inside(image.name, a) : a)), '--listen', '127.0.0.1:0'];
    daemon = spawn(process.execPath, args, { cwd: join(imageRoot, 'app'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    daemon.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const context = () => output.slice(-4000);

    const served = await untilListening(() => output);
    await until('ready after the first run', async () => ((await httpStatus(`${served}/readyz`)) === 200 ? true : undefined), { context });
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
    expect(output).toMatch(/"signal":"SIGTERM","msg":"signal received: shutting down"/);
    // Stopped: the record of the address is gone with the process.
    expect(existsSync(env.OBSYNC_URL_OUT ?? ''), 'OBSYNC_URL_OUT removed at exit').toBe(false);
  });
});
