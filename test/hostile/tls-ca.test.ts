/**
 * A service behind a private CA: `obsync plan` (a child process, as a user runs it) fails with the
 * named TLS error and the NODE_EXTRA_CA_CERTS hint, and succeeds once NODE_EXTRA_CA_CERTS holds the CA.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, cliInChildProcesses, runCli } from '../support/cli.js';
import { httpsFront, makePki, opensslMissing, type HttpsFront, type TestPki } from './tls-cert.js';

// Node reads NODE_EXTRA_CA_CERTS when a process starts.
cliInChildProcesses();

const noOpenssl = opensslMissing();
let pki: TestPki;
let sandbox: SandboxHandle;
let front: HttpsFront;
let dir: string;

beforeAll(async () => {
  if (noOpenssl) return;
  assertBuilt();
  pki = makePki();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  front = await httpsFront(pki, sandbox.url);
  dir = mkdtempSync(join(tmpdir(), 'obsync-tls-ca-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - {name: private, variant: self-hosted, baseUrl: "${front.url}", retries: 2, timeoutSeconds: 5}
`,
  );
});

afterAll(async () => {
  if (noOpenssl) return;
  await front.close();
  await sandbox.close();
  pki.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(noOpenssl !== null)(`a private CA${noOpenssl ? ` (skipped: ${noOpenssl})` : ''}`, () => {
  const env = () => ({ OBSYNC_API_KEY: sandbox.credentials.apiKey });

  it('without NODE_EXTRA_CA_CERTS: an error that names the certificate and the fix', async () => {
    const res = await runCli(['plan'], { cwd: dir, env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/TLS certificate of https:\/\/127\.0\.0\.1:\d+ not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(res.stderr).toMatch(/hint: .*NODE_EXTRA_CA_CERTS/);
    expect(res.stderr).not.toMatch(/no response/);
  });

  it('with NODE_EXTRA_CA_CERTS pointing at the CA: the plan goes through', async () => {
    const res = await runCli(['plan'], { cwd: dir, env: { ...env(), NODE_EXTRA_CA_CERTS: pki.caFile } });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Dashboard\/checkout/);
  });
});
