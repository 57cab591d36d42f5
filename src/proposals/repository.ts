/**
 * obsync's own clone of the manifests' repository (a bare repository under the state directory:
 * a read-only manifests volume is never written) and the one branch per target it proposes on.
 * Commits are made with Git's plumbing on a private index (no working tree to clean), each on the
 * base branch's tip or on obsync's own previous commit, and pushed with a lease on the branch tip
 * obsync saw: a branch holding a commit obsync did not make is never pushed over (ForeignCommitsError),
 * and one that moved since it was fetched is not either (the lease fails: BranchMovedError).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ObsyncError } from '../core/errors.js';
import { scrub } from '../core/scrub.js';
import type { Git } from './git.js';

/** The trailers of obsync's own commits: which target, and since when its proposal is open. */
export const TARGET_TRAILER = 'Obsync-Target';
export const OPENED_TRAILER = 'Obsync-Opened';

export class ForeignCommitsError extends ObsyncError {
  override readonly name = 'ForeignCommitsError';
  constructor(
    readonly branch: string,
    readonly commits: readonly { sha: string; author: string }[],
  ) {
    const list = commits.map((c) => `${c.sha.slice(0, 12)} by ${c.author}`).join(', ');
    super('FOREIGN_COMMITS', scrub(`branch ${branch} holds commits obsync did not make (${list}): obsync leaves it alone`), {
      hint: `merge or close the proposal and delete the branch ${branch}, or remove those commits from it; obsync then proposes again`,
    });
  }
}

export class BranchMovedError extends ObsyncError {
  override readonly name = 'BranchMovedError';
  constructor(readonly branch: string) {
    super('BRANCH_MOVED', `branch ${branch} moved while obsync was updating it: nothing was pushed over it`, {
      hint: "the next run fetches it again and proposes on it if it is still obsync's own",
    });
  }
}

/** The proposal branch as the remote has it. */
export interface BranchState {
  baseTip: string;
  /** Undefined when the remote has no such branch. */
  tip: string | undefined;
  /** When obsync opened the proposal (its commits' trailer). */
  openedAt: string | undefined;
  /** Whether the branch holds the base's tip (a commit added on it keeps its history). */
  onBase: boolean;
}

export class ProposalRepository {
  constructor(
    private readonly git: Git,
    private readonly dir: string,
    private readonly settings: { repository: string; branch: string; proposalBranch: string; target: string },
  ) {}

  /** Creates the bare clone on first use and fetches the base branch and obsync's proposal branches. */
  async fetch(): Promise<void> {
    if (!existsSync(join(this.dir, 'HEAD'))) {
      mkdirSync(this.dir, { recursive: true });
      await this.git(['init', '--bare', '--quiet', '.']);
    }
    await this.git(['config', 'remote.origin.url', this.settings.repository]);
    const { branch } = this.settings;
    await this.git([
      'fetch',
      '--quiet',
      '--prune',
      '--no-tags',
      'origin',
      `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
      '+refs/heads/obsync/propose/*:refs/remotes/origin/obsync/propose/*',
    ]);
  }

  /** The branch's state; a ForeignCommitsError when a commit on it (past the base) is not obsync's for this target. */
  async state(): Promise<BranchState> {
    const baseTip = await this.revParse(`refs/remotes/origin/${this.settings.branch}`);
    if (baseTip === undefined) throw new ObsyncError('GIT', `the base branch ${this.settings.branch} was not fetched`);
    const tip = await this.revParse(this.remoteRef);
    if (tip === undefined) return { baseTip, tip, openedAt: undefined, onBase: false };
    const log = await this.git([
      'log',
      '--format=%H%x1f%an <%ae>%x1f' +
        `%(trailers:key=${TARGET_TRAILER},valueonly,separator=%x2C)%x1f` +
        `%(trailers:key=${OPENED_TRAILER},valueonly,separator=%x2C)%x1e`,
      `${baseTip}..${tip}`,
    ]);
    const commits = log.stdout
      .split('\x1e')
      .map((r) => r.trim())
      .filter(Boolean)
      .map((r) => {
        const [sha = '', author = '', target = '', opened = ''] = r.split('\x1f');
        return { sha, author, target: target.trim(), opened: opened.trim() };
      });
    const foreign = commits.filter((c) => c.target !== this.settings.target);
    if (foreign.length > 0) throw new ForeignCommitsError(this.settings.proposalBranch, foreign);
    const onBase = (await this.git(['merge-base', '--is-ancestor', baseTip, tip], { allowFailure: true })).code === 0;
    return { baseTip, tip, openedAt: commits[0]?.opened || undefined, onBase };
  }

  /** A file's text at a commit, undefined when it has none there. */
  async read(commit: string, path: string): Promise<string | undefined> {
    const r = await this.git(['cat-file', 'blob', `${commit}:${path}`], { allowFailure: true });
    return r.code === 0 ? r.stdout : undefined;
  }

  /** The tree of `base` with these files written (text) or removed (null), made on a private index. */
  async treeWith(base: string, files: ReadonlyMap<string, string | null>): Promise<string> {
    const index = join(this.dir, 'obsync-index');
    rmSync(index, { force: true });
    const env = { GIT_INDEX_FILE: index };
    await this.git(['read-tree', base], { env });
    for (const [path, text] of files) {
      if (text === null) {
        await this.git(['update-index', '--force-remove', '--', path], { env });
        continue;
      }
      const blob = (await this.git(['hash-object', '-w', '--stdin'], { input: text })).stdout.trim();
      await this.git(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
    }
    const tree = (await this.git(['write-tree'], { env })).stdout.trim();
    rmSync(index, { force: true });
    return tree;
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.git(['rev-parse', `${commit}^{tree}`])).stdout.trim();
  }

  async parentOf(commit: string): Promise<string | undefined> {
    return this.revParse(`${commit}^`);
  }

  /** A commit of `tree` on `parent`, by the configured author, with obsync's trailers. */
  async commit(tree: string, parent: string, message: string, openedAt: string): Promise<string> {
    const text = `${scrub(message).trimEnd()}\n\n${TARGET_TRAILER}: ${this.settings.target}\n${OPENED_TRAILER}: ${openedAt}\n`;
    return (await this.git(['commit-tree', tree, '-p', parent, '-F', '-'], { input: text })).stdout.trim();
  }

  /** Sets the remote branch to `commit` (undefined: deletes it) only if it is still at `expected` (undefined: absent). */
  async push(commit: string | undefined, expected: string | undefined): Promise<void> {
    const ref = `refs/heads/${this.settings.proposalBranch}`;
    const r = await this.git(
      ['push', '--porcelain', '--quiet', `--force-with-lease=${ref}:${expected ?? ''}`, 'origin', `${commit ?? ''}:${ref}`],
      { allowFailure: true },
    );
    if (r.code === 0) return;
    if (/stale info|fetch first|non-fast-forward|\[rejected\]/.test(r.stdout + r.stderr))
      throw new BranchMovedError(this.settings.proposalBranch);
    throw new ObsyncError(
      'GIT',
      `git push of ${this.settings.proposalBranch} failed: ${scrub((r.stderr || r.stdout).trim().slice(0, 2000))}`,
      {
        hint: 'check writeBack.repository and that the token may push to it',
      },
    );
  }

  private get remoteRef(): string {
    return `refs/remotes/origin/${this.settings.proposalBranch}`;
  }

  private async revParse(ref: string): Promise<string | undefined> {
    const r = await this.git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { allowFailure: true });
    return r.code === 0 ? r.stdout.trim() : undefined;
  }
}
