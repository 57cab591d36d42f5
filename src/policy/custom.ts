/**
 * Custom rules: CEL expressions of `kind: Policy` manifests (as Kubernetes' ValidatingAdmissionPolicy
 * writes them), evaluated with @marcbachmann/cel-js over the policy input, version 1 (docs/policy.md):
 * `object` (the manifest: apiVersion, kind, metadata, spec), `change` (action, reason, changes,
 * backtest) and `target` (name, variant). `true` passes. A rule that does not compile, or does not
 * give a bool for an object, is an error finding naming the rule and its file:line: never a pass.
 */
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { DesiredResource } from '../core/resource.js';
import type { Finding } from './model.js';
import type { PolicyRule } from './policy-manifest.js';
import { BUILTIN_RULES } from './settings.js';

export const POLICY_INPUT_VERSION = 1;

/** `change` of the input: what the plan does to the object (`lint`: no plan, manifests only). */
export interface ChangeInput {
  action: 'create' | 'update' | 'delete' | 'noop' | 'lint';
  reason: string;
  changes: readonly { path: string; before?: unknown; after?: unknown }[];
  backtest?: unknown;
}

export interface TargetInput {
  /** Empty in a lint without targets. */
  name: string;
  variant: string;
}

/** One object the rules read: its manifest, and its change when there is a plan. */
export interface Subject {
  res: DesiredResource;
  change: ChangeInput;
}

export interface CompiledRule {
  rule: PolicyRule;
  program: ParseResult;
}

const environment = new Environment({ enableOptionalTypes: true })
  .registerVariable('object', 'map')
  .registerVariable('change', 'map')
  .registerVariable('target', 'map');

/** Every rule compiled; the ones that cannot run are findings (a bad expression, an id taken twice or by a built-in rule). */
export function compileRules(rules: readonly PolicyRule[]): { compiled: CompiledRule[]; findings: Finding[] } {
  const compiled: CompiledRule[] = [];
  const findings: Finding[] = [];
  const seen = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const first = seen.get(rule.id);
    if (first) {
      findings.push(ruleProblem(rule, `rule id '${rule.id}' is also used at ${first.file}:${first.line}: rule ids are unique`));
      continue;
    }
    seen.set(rule.id, rule);
    if (Object.hasOwn(BUILTIN_RULES, rule.id)) {
      findings.push(ruleProblem(rule, `rule id '${rule.id}' is a built-in rule's: choose another id`));
      continue;
    }
    const problem = compileProblem(rule);
    if (typeof problem === 'string') findings.push(ruleProblem(rule, problem));
    else compiled.push({ rule, program: problem });
  }
  return { compiled, findings };
}

function compileProblem(rule: PolicyRule): ParseResult | string {
  let program: ParseResult;
  try {
    program = environment.parse(rule.expression);
  } catch (e) {
    return `rule '${rule.id}' does not compile: ${firstLine(e)}`;
  }
  const check = program.check();
  if (!check.valid) return `rule '${rule.id}' does not compile: ${firstLine(check.error)}`;
  if (check.type !== undefined && check.type !== 'bool' && check.type !== 'dyn')
    return `rule '${rule.id}' gives a ${check.type}, not a bool: write a condition that is true when the object passes`;
  return program;
}

/** The findings of the compiled rules over the subjects on one target (rules scoped to other targets do not run). */
export function customFindings(compiled: readonly CompiledRule[], subjects: readonly Subject[], target: TargetInput): Finding[] {
  const findings: Finding[] = [];
  const targetInput = { name: target.name, variant: target.variant };
  const inScope = compiled.filter(({ rule }) => rule.targets === undefined || rule.targets.includes(target.name));
  if (inScope.length === 0) return findings;
  for (const subject of subjects) {
    const rules = inScope.filter(({ rule }) => rule.kinds.includes(subject.res.kind));
    if (rules.length === 0) continue;
    const input = { object: objectInput(subject.res), change: jsonValue(subject.change), target: targetInput };
    for (const { rule, program } of rules) {
      const outcome = evaluate(program, input);
      if (outcome === true) continue;
      const { res } = subject;
      if (outcome === false) findings.push(failed(rule, res));
      else
        findings.push(
          ruleProblem(
            rule,
            `rule '${rule.id}' could not be evaluated on ${res.address} (${res.source.file}:${res.source.line}): ${outcome.error}`,
          ),
        );
    }
  }
  return findings;
}

function evaluate(program: ParseResult, input: Record<string, unknown>): boolean | { error: string } {
  try {
    const value: unknown = program(input);
    return typeof value === 'boolean' ? value : { error: `it gave ${describe(value)}, not a bool` };
  } catch (e) {
    return { error: firstLine(e) };
  }
}

function failed(rule: PolicyRule, res: DesiredResource): Finding {
  return {
    rule: rule.id,
    severity: rule.severity,
    message: `${res.address}: ${rule.message}`,
    address: res.address,
    file: res.source.file,
    line: res.source.line,
    col: res.source.col,
  };
}

/** A problem of the rule itself, at its own file:line, always an error; no address: an object cannot waive it. */
function ruleProblem(rule: PolicyRule, message: string): Finding {
  return { rule: rule.id, severity: 'error', message, file: rule.file, line: rule.line, col: rule.col };
}

/** The manifest as rules read it: JSON values only (no undefined), so `has()` and `in` behave as on the YAML. */
function objectInput(res: DesiredResource): unknown {
  const metadata = { name: res.name, labels: res.labels, ...(res.waivers ? { waivers: res.waivers } : {}) };
  return jsonValue({ apiVersion: 'obsync/v1', kind: res.kind, metadata, spec: res.spec });
}

function jsonValue(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.split('\n')[0] ?? text;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'an int';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}
