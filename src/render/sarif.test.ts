import { describe, expect, it } from 'vitest';
import { sarifValidator } from '../../test/support/sarif.js';
import { githubAnnotation } from '../cli/commands/validate.js';
import { findingDiagnostic } from '../cli/commands/lint.js';
import type { Finding } from '../policy/model.js';
import { sarifLog } from './sarif.js';

const findings: Finding[] = [
  {
    rule: 'unused-webhook',
    severity: 'warning',
    message: 'Webhook/spare is notified by no alert',
    address: 'Webhook/spare',
    file: 'manifests/a b.yaml',
    line: 3,
    col: 1,
  },
  { rule: 'never', severity: 'error', message: 'x', address: 'Dashboard/d', file: 'manifests/a.yaml', line: 9, col: 1, waived: 'legacy' },
  { rule: 'bad', severity: 'error', message: "rule 'bad' does not compile", file: 'policies/p.yaml', line: 4, col: 7 },
  { rule: 'protected-delete', severity: 'error', message: 'Dashboard/old would be deleted', address: 'Dashboard/old' },
];
const rule = {
  id: 'never',
  severity: 'error' as const,
  kinds: ['Dashboard'],
  expression: 'false',
  message: 'never',
  policy: 'p',
  file: 'policies/p.yaml',
  line: 4,
  col: 7,
};

describe('SARIF 2.1.0', () => {
  it('validates against the official schema: results at file:line, a waiver as an in-source suppression', () => {
    const log = sarifLog(findings, [rule], '0.1.0');
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const results = (log.runs as { results: Record<string, unknown>[] }[])[0]?.results ?? [];
    expect(results[0]).toMatchObject({
      ruleId: 'unused-webhook',
      level: 'warning',
      locations: [
        { physicalLocation: { artifactLocation: { uri: 'manifests/a%20b.yaml', uriBaseId: '%SRCROOT%' }, region: { startLine: 3 } } },
      ],
    });
    expect(results[1]).toMatchObject({ suppressions: [{ kind: 'inSource', justification: 'legacy' }] });
    expect(results[3]).toMatchObject({ locations: [{ logicalLocations: [{ fullyQualifiedName: 'Dashboard/old' }] }] });
    expect(JSON.stringify(results[3])).not.toContain('physicalLocation');
  });

  it('the schema check is real: a result without a message fails it', () => {
    const log = sarifLog(findings, [], '0.1.0') as { runs: { results: Record<string, unknown>[] }[] };
    delete log.runs[0]?.results[0]?.message;
    expect(sarifValidator()(log)).toBe(false);
  });
});

describe('GitHub workflow annotations of findings', () => {
  it('escape % and LF in the message (a CR is shown escaped by the output pass first), and : and , in properties', () => {
    const f: Finding = { rule: 'r', severity: 'error', message: '100% bad\r\nnext', file: 'a:b,c.yaml', line: 2, col: 3 };
    expect(githubAnnotation(findingDiagnostic(f))).toContain('::error file=a%3Ab%2Cc.yaml,line=2,col=3::100%25 bad\\r%0Anext [r]');
  });
});
