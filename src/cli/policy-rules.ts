/**
 * What lint, plan and apply need for the policy check: the Policy manifests' rules (among the
 * manifests, and in `policy.paths` — default the `policies` folder beside obsync.yaml), and the
 * findings as the project names their files.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ObsyncConfig } from '../config/schema.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { loadManifests } from '../manifests/load.js';
import type { Finding } from '../policy/model.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { ProjectPaths } from './project-paths.js';

/** The folders of Policy manifests outside the manifests: `policy.paths` (relative to obsync.yaml), else `policies` when it exists. */
export function policyPaths(cwd: string, configPath: string | undefined, config: ObsyncConfig | undefined): string[] {
  const base = configPath ? dirname(configPath) : cwd;
  const given = config?.policy?.paths;
  if (given) return given.map((p) => resolve(base, p));
  const fallback = join(base, 'policies');
  return existsSync(fallback) ? [fallback] : [];
}

/**
 * The rules of the Policy manifests under `paths` plus those found among the manifests, each once
 * (a policies folder inside the manifests is read by both). Only Policy documents are taken from `paths`.
 */
export function policyRules(
  paths: readonly string[],
  fromManifests: readonly PolicyRule[],
  env: Readonly<Record<string, string | undefined>>,
): { rules: PolicyRule[]; diagnostics: Diagnostic[] } {
  const found = paths.length > 0 ? loadManifests(paths, { env }) : { policies: [], diagnostics: [] };
  return {
    rules: uniqueRules([...fromManifests, ...found.policies]),
    diagnostics: found.diagnostics.filter((d) => d.code !== 'no-manifests'),
  };
}

/** Each rule once (by where it is written): a policies folder inside the manifests is read twice. */
export function uniqueRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const unique = new Map<string, PolicyRule>();
  for (const r of rules) unique.set(`${r.file}\u0000${r.line}\u0000${r.col}`, r);
  return [...unique.values()];
}

/** The findings of several targets as one list: the same finding on several targets is shown once. */
export function mergeFindings(perTarget: readonly (readonly Finding[])[]): Finding[] {
  const seen = new Map<string, Finding>();
  for (const findings of perTarget) for (const f of findings) seen.set(JSON.stringify(f), f);
  return [...seen.values()];
}

/** A finding with its file and message as the project names them. */
export function projectFinding(paths: ProjectPaths, f: Finding): Finding {
  return { ...f, message: paths.text(f.message), ...(f.file === undefined ? {} : { file: paths.file(f.file) }) };
}
