import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

const files = (map: Record<string, string>) => (p: string) => {
  const text = map[p];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
  return text;
};

describe('loadConfig', () => {
  it('interpolates and validates obsync.yaml', () => {
    const text = 'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - name: prod\n    variant: self-hosted\n    baseUrl: ${env:OBS_URL}\n    credentials: {apiKey: "${file:key.txt}"}\n';
    const out = loadConfig('/repo/obsync.yaml', { OBS_URL: 'http://127.0.0.1:8000' }, { readFile: files({ '/repo/obsync.yaml': text, '/repo/key.txt': 'k-123\n' }) });
    expect(out.diagnostics).toEqual([]);
    expect(out.dir).toBe('/repo');
    expect(out.config?.targets?.[0]).toEqual({ name: 'prod', variant: 'self-hosted', baseUrl: 'http://127.0.0.1:8000', credentials: { apiKey: 'k-123' } });
  });

  it('locates errors with a suggestion and refuses the config', () => {
    const text = 'apiVersion: obsync/v1\nkind: Config\nmanifest: [manifests]\ntargets:\n  - name: prod\n    variant: self-hosted\n    baseUrl: ${env:OBS_URL}\n';
    const out = loadConfig('/repo/obsync.yaml', {}, { readFile: files({ '/repo/obsync.yaml': text }) });
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`)).toEqual([
      "3:1 manifest unknown key 'manifest' — did you mean 'manifests'?",
      '7:14 targets[0].baseUrl environment variable OBS_URL is not set (referenced as ${env:OBS_URL})',
    ]);
  });

  it('reports a missing file and a multi-document file', () => {
    expect(loadConfig('/none/obsync.yaml', {}, { readFile: files({}) }).diagnostics[0]).toMatchObject({ code: 'io' });
    const two = loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\n---\nkind: Config\n' }) });
    expect(two.diagnostics[0]).toMatchObject({ code: 'multiple-documents' });
  });

  it('reads the postgres state backend in the shape the examples use, with the file backend as default', () => {
    const text = 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgres, url: "${env:OBSYNC_STATE_URL}", schema: obsync}\n';
    const url = 'postgres://obsync:pw@127.0.0.1:5432/obs';
    const out = loadConfig('/r/obsync.yaml', { OBSYNC_STATE_URL: url }, { readFile: files({ '/r/obsync.yaml': text }) });
    expect(out.diagnostics).toEqual([]);
    expect(out.config?.state).toEqual({ backend: 'postgres', url, schema: 'obsync' });
    const file = loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {path: st, leaseSeconds: 20}\n' }) });
    expect(file.config?.state).toEqual({ backend: 'file', path: 'st', leaseSeconds: 20 });
    const typo = loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgres, url: x, shema: s}\n' }) });
    expect(typo.config).toBeUndefined();
    expect(typo.diagnostics.map((d) => d.message).join('\n')).toMatch(/unknown key 'shema' — did you mean 'schema'/);
    const backend = loadConfig('/r/obsync.yaml', {}, { readFile: files({ '/r/obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nstate: {backend: postgress, url: x}\n' }) });
    expect(backend.diagnostics.map((d) => `${d.path} ${d.message}`).join('\n')).toBe("state.backend unknown backend 'postgress' — expected one of: postgres, file");
  });
});
