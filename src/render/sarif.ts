/**
 * SARIF 2.1.0 (OASIS), the format GitHub code scanning and GitLab ingest: one run of the tool
 * `obsync`, its rules (the built-in ones and the custom rules loaded), one result per finding at
 * the manifest's file:line (relative to the repository root, %SRCROOT%). A waived finding is a
 * result with an in-source suppression carrying the waiver's reason. A test validates the output
 * against the official schema (test/support/schemas/sarif-schema-2.1.0.json).
 */
import type { Finding } from '../policy/model.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import { BUILTIN_RULES } from '../policy/settings.js';

export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

interface SarifRule {
  id: string;
  shortDescription: { text: string };
  defaultConfiguration: { level: 'error' | 'warning' } | { enabled: false };
}

export function sarifLog(findings: readonly Finding[], custom: readonly PolicyRule[], version: string): Record<string, unknown> {
  const rules: SarifRule[] = [
    ...Object.entries(BUILTIN_RULES).map(([id, r]) => sarifRule(id, r.about, r.severity)),
    ...custom.map((r) => sarifRule(r.id, r.message, r.severity)),
  ];
  const index = new Map<string, number>();
  rules.forEach((r, i) => {
    if (!index.has(r.id)) index.set(r.id, i);
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'obsync', semanticVersion: version, informationUri: 'https://github.com/obsync/obsync', rules } },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The project folder (where obsync.yaml is)' } } },
        results: findings.map((f) => sarifResult(f, index.get(f.rule))),
      },
    ],
  };
}

/** The SARIF log as a command prints it on stdout. */
export function sarifText(findings: readonly Finding[], custom: readonly PolicyRule[], version: string): string {
  return `${JSON.stringify(sarifLog(findings, custom, version), null, 2)}\n`;
}

function sarifRule(id: string, text: string, level: 'error' | 'warning' | 'off'): SarifRule {
  return { id, shortDescription: { text }, defaultConfiguration: level === 'off' ? { enabled: false } : { level } };
}

function sarifResult(f: Finding, ruleIndex: number | undefined): Record<string, unknown> {
  const region = f.line !== undefined ? { region: { startLine: f.line, ...(f.col !== undefined ? { startColumn: f.col } : {}) } } : {};
  const physical = f.file ? { physicalLocation: { artifactLocation: { uri: fileUri(f.file), uriBaseId: '%SRCROOT%' }, ...region } } : {};
  const logical = f.address ? { logicalLocations: [{ fullyQualifiedName: f.address, kind: 'resource' }] } : {};
  const location = { ...physical, ...logical };
  return {
    ruleId: f.rule,
    ...(ruleIndex !== undefined ? { ruleIndex } : {}),
    level: f.severity,
    message: { text: f.message },
    ...(Object.keys(location).length > 0 ? { locations: [location] } : {}),
    ...(f.waived !== undefined ? { suppressions: [{ kind: 'inSource', justification: f.waived }] } : {}),
  };
}

/** A relative path as a URI reference: forward slashes, each segment percent-encoded. */
function fileUri(file: string): string {
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}
