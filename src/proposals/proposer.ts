/**
 * Makes, updates or closes a target's one proposal (issue 41): the files the pull engine changed
 * are merged onto the base branch as it is now (./merge.ts), committed on obsync's own branch and
 * pushed with a lease (./repository.ts), and one pull or merge request is opened or updated with
 * the plan's markdown (./body.ts); with nothing left to propose the request is closed and the
 * branch deleted. Title, body and commit message pass the one scrubber and the one output pass.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WriteBackSettings } from '../config/write-back.js';
import { printable, safeOutput } from '../core/printable.js';
import { scrub } from '../core/scrub.js';
import type { ForgeClient, ReviewRequest } from '../remote/forge/index.js';
import { commitMessage, MAX_BODY_LENGTH, proposalTitle, type ProposalConflict } from './body.js';
import type { Git } from './git.js';
import { mergeFile } from './merge.js';
import { repositoryPath } from './paths.js';
import { ProposalRepository, type BranchState } from './repository.js';

export type { ProposalConflict };

/** One manifest file the pull engine changed (its FilePull fits): the text it read and the new one; null: no file. */
export interface ProposedFile {
  /** The local path (absolute, or relative to the settings' localRoot). */
  file: string;
  before: string | null;
  after: string | null;
}

export interface ProposalRequest {
  files: readonly ProposedFile[];
  /** Markdown: `proposalBody(…)` (the plan's markdown and the conflicts). */
  body: string;
  /** The addresses of the objects the proposal carries. */
  objects: readonly string[];
  /** Conflicts the caller found (pull's, Git against the service): with nothing to commit, an open proposal is kept for them. */
  conflicts?: readonly ProposalConflict[];
}

export type ProposalStatus = 'opened' | 'updated' | 'unchanged' | 'closed' | 'none' | 'conflicted';

export interface Proposal {
  status: ProposalStatus;
  branch: string;
  /** The pull or merge request (undefined with forge type none, or when there is none). */
  url: string | undefined;
  /** When the proposal was first opened (ISO 8601). */
  openedAt: string | undefined;
  ageSeconds: number | undefined;
  objects: string[];
  /** The branch's tip after this call (undefined when it has none). */
  commit: string | undefined;
  /** Files left out of the proposal: changed in Git since obsync read them, where the service changed them too. */
  conflicts: ProposalConflict[];
}

export interface Proposer {
  propose(request: ProposalRequest): Promise<Proposal>;
}

export interface ProposerDeps {
  settings: WriteBackSettings;
  git: Git;
  forge: ForgeClient | undefined;
  now?: () => number;
}

export function createProposer(deps: ProposerDeps): Proposer {
  const { settings, git, forge } = deps;
  const now = deps.now ?? Date.now;
  const repo = new ProposalRepository(git, settings.cloneDir, settings);
  const scratch = join(settings.cloneDir, 'obsync-scratch');
  return {
    async propose(request) {
      await repo.fetch();
      const state = await repo.state();
      mkdirSync(scratch, { recursive: true });
      const { files, conflicts } = await mergedFiles(request.files, state.baseTip);
      const tree = await repo.treeWith(state.baseTip, files);
      const objects = [...request.objects];
      const text = {
        title: printable(scrub(proposalTitle(settings.target, objects))),
        body: safeOutput(scrub(request.body)).slice(0, MAX_BODY_LENGTH),
      };
      if (tree === (await repo.treeOf(state.baseTip))) {
        const undecided = [...conflicts, ...(request.conflicts ?? [])];
        if (undecided.length > 0) return keepConflicted(state, objects, undecided, text);
        return withdraw(state, objects);
      }
      const openedAt = state.openedAt ?? new Date(now()).toISOString();
      const commit = await commitIfChanged(state, tree, objects, openedAt);
      if (!forge)
        return outcome(
          commit === state.tip ? 'unchanged' : state.tip ? 'updated' : 'opened',
          undefined,
          commit,
          openedAt,
          objects,
          conflicts,
        );
      const found = await forge.findOpen(settings.proposalBranch, settings.branch);
      if (!found) {
        const opened = await forge.open(settings.proposalBranch, settings.branch, text);
        return outcome('opened', opened, commit, opened.createdAt, objects, conflicts);
      }
      const same = found.title === text.title && found.body === text.body;
      const updated = same ? found : await forge.update(found.number, text);
      return outcome(same && commit === state.tip ? 'unchanged' : 'updated', updated, commit, found.createdAt, objects, conflicts);
    },
  };

  /** Each file merged onto the base as it is now, by its path in the repository; the ones that cannot be, as conflicts. */
  async function mergedFiles(proposed: readonly ProposedFile[], base: string) {
    const files = new Map<string, string | null>();
    const conflicts: ProposalConflict[] = [];
    for (const f of proposed) {
      const path = repositoryPath(settings.localRoot, settings.path, f.file);
      if (path === undefined) {
        conflicts.push(fileConflict(f.file, `the file is outside ${settings.localRoot}, which writeBack.path stands for`));
        continue;
      }
      const merged = await mergeFile(git, scratch, f, await repo.read(base, path));
      if (merged.ok) files.set(path, merged.text);
      else conflicts.push(fileConflict(path, merged.reason));
    }
    return { files, conflicts };
  }

  /** obsync's commit of `tree`: on its previous one while that holds the base's tip, else re-made on the base. */
  async function commitIfChanged(state: BranchState, tree: string, objects: readonly string[], openedAt: string): Promise<string> {
    if (state.tip && state.onBase && (await repo.treeOf(state.tip)) === tree) return state.tip;
    const parent = state.tip && state.onBase ? state.tip : state.baseTip;
    const commit = await repo.commit(tree, parent, commitMessage(settings.target, objects), openedAt);
    await repo.push(commit, state.tip);
    return commit;
  }

  /**
   * Nothing to commit, but conflicts a person must decide: an open proposal stays as it is (its
   * branch untouched) and its body says what conflicts; none is opened for conflicts alone.
   */
  async function keepConflicted(
    state: BranchState,
    objects: string[],
    conflicts: ProposalConflict[],
    text: { title: string; body: string },
  ): Promise<Proposal> {
    const found = forge && state.tip ? await forge.findOpen(settings.proposalBranch, settings.branch) : undefined;
    const shown =
      forge && found && (found.title !== text.title || found.body !== text.body) ? await forge.update(found.number, text) : found;
    return outcome('conflicted', shown, state.tip, found?.createdAt ?? state.openedAt, objects, conflicts);
  }

  /** Nothing left to propose (the drift is gone, or merged): the request is closed and obsync's branch deleted. */
  async function withdraw(state: BranchState, objects: string[]): Promise<Proposal> {
    const found = forge ? await forge.findOpen(settings.proposalBranch, settings.branch) : undefined;
    if (forge && found) await forge.close(found.number);
    if (state.tip) await repo.push(undefined, state.tip);
    return outcome(found || state.tip ? 'closed' : 'none', found, undefined, found?.createdAt ?? state.openedAt, objects, []);
  }

  function outcome(
    status: ProposalStatus,
    request: ReviewRequest | undefined,
    commit: string | undefined,
    openedAt: string | undefined,
    objects: string[],
    conflicts: ProposalConflict[],
  ): Proposal {
    const opened = openedAt === undefined ? Number.NaN : Date.parse(openedAt);
    return {
      status,
      branch: settings.proposalBranch,
      url: request?.url,
      openedAt,
      ageSeconds: Number.isNaN(opened) ? undefined : Math.max(0, Math.round((now() - opened) / 1000)),
      objects,
      commit,
      conflicts,
    };
  }
}

function fileConflict(file: string, message: string): ProposalConflict {
  return { address: '', file, line: 1, path: '', message };
}
