/**
 * A package registry on loopback that serves this checkout's production dependencies, packed
 * from node_modules: `npm install` of obsync's tarball can then run offline, never asking a real
 * registry. Only the packages package-lock.json lists as production dependencies are served (one
 * version each, as installed); any other request is answered 404 and recorded in `missed`,
 * except the optional peer dependencies those packages name (npm looks them up and goes on).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

interface Served {
  manifest: Record<string, unknown>;
  tarball: Buffer;
}

export interface LocalRegistry {
  url: string;
  /** Package names asked for that are not production dependencies of this checkout. */
  missed: string[];
  /** Package names whose tarball was downloaded. */
  downloaded: Set<string>;
  close(): Promise<void>;
}

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
}

/** `node_modules/a`, `node_modules/@s/b` (nested copies included) → package directory, name and version. */
function productionPackages(root: string): { dir: string; name: string; version: string }[] {
  return Object.entries(lockPackages(root))
    .filter(([path, e]) => path !== '' && e.dev !== true && e.devOptional !== true && !otherPlatform(root, path, e))
    .map(([path]) => {
      const pkg = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) as { name: string; version: string };
      return { dir: join(root, path), name: pkg.name, version: pkg.version };
    });
}

function lockPackages(root: string): Record<string, LockEntry> {
  return (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
}

/** An optional package npm did not install here: another platform's binary (@resvg/resvg-js-darwin-arm64 on linux). */
function otherPlatform(root: string, path: string, e: LockEntry): boolean {
  return e.optional === true && !existsSync(join(root, path, 'package.json'));
}

/** Other platforms' optional packages: npm asks for them and skips them when they are not found. */
function otherPlatformNames(root: string): Set<string> {
  const entries = Object.entries(lockPackages(root)).filter(([path, e]) => otherPlatform(root, path, e));
  return new Set(entries.map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)));
}

/**
 * The package directory as an npm tarball (`package/…`), without its own nested node_modules. Fastest
 * gzip: the tarballs only cross loopback, and echarts alone (62 MB of files) took 3 s of CPU at the default level.
 */
function pack(dir: string, out: string): Buffer {
  execFileSync('tar', [
    '--use-compress-program=gzip -1',
    '-cf',
    out,
    '--exclude=./node_modules',
    '--transform=s,^\\.,package,',
    '-C',
    dir,
    '.',
  ]);
  return readFileSync(out);
}

export async function startLocalRegistry(root: string, workDir: string): Promise<LocalRegistry> {
  mkdirSync(workDir, { recursive: true });
  const packages = new Map<string, Map<string, Served>>();
  productionPackages(root).forEach((p, i) => {
    const tarball = pack(p.dir, join(workDir, `${i}.tgz`));
    const raw = JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const manifest = Object.fromEntries(Object.entries(raw).filter(([k]) => !k.startsWith('_')));
    const versions = packages.get(p.name) ?? new Map<string, Served>();
    versions.set(p.version, { manifest, tarball });
    packages.set(p.name, versions);
  });
  const optionalPeers = new Set(
    [...packages.values()].flatMap((versions) =>
      [...versions.values()].flatMap((s) =>
        Object.entries((s.manifest.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>)
          .filter(([, meta]) => meta.optional === true)
          .map(([name]) => name),
      ),
    ),
  );
  const skippedPlatforms = otherPlatformNames(root);
  const missed: string[] = [];
  const downloaded = new Set<string>();
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').slice(1);
    const tarball = /^(.+)\/-\/(\d[^/]*)\.tgz$/.exec(path);
    if (tarball) {
      const [, name = '', version = ''] = tarball;
      const served = packages.get(name)?.get(version);
      if (!served) return notFound(res, path);
      downloaded.add(name);
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(served.tarball);
      return;
    }
    const versions = packages.get(path);
    if (!versions) return notFound(res, path);
    const entries = [...versions].map(([version, s]) => {
      const integrity = `sha512-${createHash('sha512').update(s.tarball).digest('base64')}`;
      const shasum = createHash('sha1').update(s.tarball).digest('hex');
      return [version, { ...s.manifest, dist: { tarball: `${base}/${path}/-/${version}.tgz`, integrity, shasum } }] as const;
    });
    const latest = entries.at(-1)?.[0] ?? '0.0.0';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ name: path, 'dist-tags': { latest }, versions: Object.fromEntries(entries) }));
  });
  const notFound = (res: ServerResponse, path: string) => {
    if (!optionalPeers.has(path) && !skippedPlatforms.has(path)) missed.push(path);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    missed,
    downloaded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
