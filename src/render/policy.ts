/**
 * Policy findings for people and tools: the text lines of `obsync lint` and of the plan's policy
 * section, the JSON form (with its zod schema, published in docs/schema), and the markdown section.
 * Messages carry user and service text: every line goes through `printable`.
 */
import * as z from 'zod';
import { printable } from '../core/printable.js';
import type { Finding } from '../policy/model.js';

export const findingSchema = z
  .strictObject({
    rule: z.string().describe('The rule id: a built-in rule or a Policy rule.'),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    address: z.string().optional().describe('The object concerned, e.g. Alert/checkout-p99.'),
    file: z.string().optional().describe("The manifest's file, relative to the project."),
    line: z.number().int().optional(),
    col: z.number().int().optional(),
    waived: z.string().optional().describe("The reason of the object's waiver: reported, not enforced."),
  })
  .meta({ id: 'PolicyFinding', description: 'One finding of a policy rule (docs/policy.md).' });

export const policySectionSchema = z
  .strictObject({
    passed: z.boolean().describe('No error finding remains (waived findings do not count): apply may run.'),
    errors: z.number().int(),
    warnings: z.number().int(),
    waived: z.number().int(),
    findings: z.array(findingSchema),
  })
  .meta({ id: 'PolicyReport', description: 'The policy rules checked over the manifests (and the plan).' });

export type PolicySection = z.output<typeof policySectionSchema>;

export function policySection(findings: readonly Finding[]): PolicySection {
  const live = findings.filter((f) => f.waived === undefined);
  const errors = live.filter((f) => f.severity === 'error').length;
  return {
    passed: errors === 0,
    errors,
    warnings: live.length - errors,
    waived: findings.length - live.length,
    findings: findings.map((f) => ({ ...f })),
  };
}

/** `file:line:col: error: message [rule]`, and a waived finding with its reason. */
export function findingLine(f: Finding): string {
  const where = f.file ? `${f.file}${f.line ? `:${f.line}${f.col ? `:${f.col}` : ''}` : ''}: ` : '';
  const level = f.waived === undefined ? f.severity : `waived ${f.severity}`;
  const why = f.waived === undefined ? '' : ` (waived: ${f.waived})`;
  return printable(`${where}${level}: ${f.message} [${f.rule}]${why}`);
}

/** One line: what blocks and what only reports. */
export function policySummary(section: PolicySection): string {
  const parts = [
    `${section.errors} error(s)`,
    `${section.warnings} warning(s)`,
    ...(section.waived > 0 ? [`${section.waived} waived`] : []),
  ];
  return `Policy: ${section.passed ? 'passed' : 'failed'} — ${parts.join(', ')}`;
}

/** The text lines of the plan's policy section, after a blank line (none when there is nothing to say). */
export function policyTextLines(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return [];
  return ['', policySummary(policySection(findings)), ...findings.map((f) => `  ${findingLine(f)}`)];
}

/** The markdown of the plan's policy section; `escape` is the markdown renderer's (text made inert there). */
export function policyMarkdown(findings: readonly Finding[], escape: (text: string) => string): string {
  if (findings.length === 0) return '';
  const cell = escape;
  const rows = findings.map((f) => {
    const level = f.waived === undefined ? f.severity : `waived ${f.severity}`;
    const why = f.waived === undefined ? '' : ` (waived: ${cell(f.waived)})`;
    const where = f.file ? cell(`${f.file}:${f.line ?? 1}`) : '';
    return `| ${level} | ${cell(f.rule)} | ${cell(f.message)}${why} | ${where} |\n`;
  });
  const head = `**${escape(policySummary(policySection(findings)))}**\n\n| | rule | finding | where |\n|---|---|---|---|\n`;
  return `${head}${rows.join('')}\n`;
}
