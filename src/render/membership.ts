/**
 * The team's membership changes as one readable table for reviewers (issue 44): who, what
 * happens, and the role before → after. Built from the plan's TeamMember steps; the invite URL is
 * never part of a step, so never of this table.
 */
import type { Plan, PlanStep } from '../core/plan.js';
import type { Json } from '../core/wire.js';

const ACTION: Readonly<Record<string, string>> = { create: 'invited', update: 'role changed', delete: 'removed (or invitation revoked)' };

export interface MembershipRow {
  who: string;
  change: string;
  before: string;
  after: string;
}

export function membershipRows(plan: Plan): MembershipRow[] {
  return plan.steps
    .filter((s) => s.kind === 'TeamMember' && s.action !== 'noop')
    .map((s) => ({ who: emailOf(s), change: ACTION[s.action] ?? s.action, before: roleBefore(s), after: roleAfter(s) }))
    .sort((a, b) => (a.who < b.who ? -1 : a.who > b.who ? 1 : 0));
}

/** The markdown table, or '' when the plan changes no membership. `escape` is the renderer's own escaping of service text. */
export function membershipMarkdown(plan: Plan, escape: (text: string) => string): string {
  const rows = membershipRows(plan);
  if (rows.length === 0) return '';
  const cell = (t: string) => escape(t).replaceAll('|', '\\|');
  const body = rows.map((r) => `| ${cell(r.who)} | ${cell(r.change)} | ${cell(r.before)} → ${cell(r.after)} |\n`).join('');
  return `**Team membership**\n\n| who | change | role before → after |\n|---|---|---|\n${body}\n`;
}

function text(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function emailOf(s: PlanStep): string {
  return text(s.payload?.email) ?? text(s.backup?.email) ?? s.id ?? s.name;
}

function roleBefore(s: PlanStep): string {
  if (s.action === 'create') return '—';
  const changed = s.changes.find((c) => c.path === 'role');
  return text(changed?.before) ?? text(s.backup?.role) ?? '(unchanged)';
}

function roleAfter(s: PlanStep): string {
  if (s.action === 'delete') return '—';
  return text(s.payload?.role) ?? '(team default)';
}
