/**
 * The text of a proposal: its title, its pull or merge request body (the plan's markdown from
 * src/render/plan-markdown.ts, which escapes and bounds it, after a lead saying what merging does,
 * and the conflicts obsync would not decide, escaped the same way), and its commit message. Every
 * piece passes the one scrubber on its way out (./proposer.ts).
 */
import type { Plan } from '../core/plan.js';
import { escape } from '../render/markdown-text.js';
import { renderPlansMarkdown } from '../render/plan-markdown.js';

/** GitHub refuses a body over 65,536 characters; GitLab's limit is higher. */
export const MAX_BODY_LENGTH = 65_000;
const CONFLICTS_ROOM = 4_000;

export interface ProposalConflict {
  address: string;
  file: string;
  line: number;
  /** `spec.threshold`, or '' for the whole file. */
  path: string;
  message: string;
}

export function proposalTitle(target: string, objects: readonly string[]): string {
  const what = objects.length === 1 ? (objects[0] ?? '1 object') : `${objects.length} objects`;
  return `obsync: ${what} changed on the service (${target})`;
}

/** An object made on the service that the proposal adds a manifest for (writeBack.include). */
export interface NewObject {
  address: string;
  /** Its new file, relative to the project. */
  file: string;
  /** Set when merging does not make it owned by itself (adopt: explicit, or a shared key): the command that binds it. */
  importCommand?: string;
}

export function proposalBody(
  target: string,
  plan: Plan,
  conflicts: readonly ProposalConflict[],
  created: readonly NewObject[] = [],
): string {
  const lead =
    `**Changes made on the service for target ${escape(target)}.** Merging this brings the manifests to the live state; ` +
    'while it is open obsync does not put these objects back. The plan below is what obsync would otherwise apply.\n\n';
  const conflictText = conflictSection(conflicts);
  const createdText = createdSection(created);
  const plans = renderPlansMarkdown([plan], MAX_BODY_LENGTH - lead.length - conflictText.length - createdText.length - 200);
  return `${lead}${conflictText}${createdText}${plans}`;
}

function createdSection(created: readonly NewObject[]): string {
  if (created.length === 0) return '';
  let out = `### ${created.length} object(s) made on the service, added as new manifests\n\n`;
  for (const [i, c] of created.entries()) {
    const how = c.importCommand ? ` — after merging, bind it with \`${escape(c.importCommand)}\`` : ' — the next apply adopts it';
    const line = `- ${escape(c.address)} in ${escape(c.file)}${how}\n`;
    if (out.length + line.length > CONFLICTS_ROOM) {
      out += `- … and ${created.length - i} more\n`;
      break;
    }
    out += line;
  }
  return `${out}\n`;
}

export function commitMessage(target: string, objects: readonly string[]): string {
  const shown = objects.slice(0, 50).map((a) => `- ${a}`);
  if (objects.length > shown.length) shown.push(`- … and ${objects.length - shown.length} more`);
  return `obsync: bring the manifests of ${target} to the live state\n\n${shown.join('\n')}`;
}

function conflictSection(conflicts: readonly ProposalConflict[]): string {
  if (conflicts.length === 0) return '';
  let out = `### ⚠️ ${conflicts.length} conflict(s) obsync did not decide\n\n`;
  for (const [i, c] of conflicts.entries()) {
    const line = `- ${escape(`${c.file}:${c.line}`)}${c.path ? ` ${escape(c.path)}` : ''} (${escape(c.address)}): ${escape(c.message)}\n`;
    if (out.length + line.length > CONFLICTS_ROOM) {
      out += `- … and ${conflicts.length - i} more\n`;
      break;
    }
    out += line;
  }
  return `${out}\n`;
}
