/**
 * The daemon's entry to write-back (issue 41): a target's `Proposer` from its resolved settings —
 * the git runner (the token as an HTTP header for an https repository, never in the URL or on
 * disk) and the forge client its settings name.
 */
import { mkdirSync } from 'node:fs';
import type { WriteBackSettings } from '../config/write-back.js';
import { Secret } from '../core/secret.js';
import { createForge } from '../remote/forge/index.js';
import type { ProxySettings } from '../remote/network.js';
import { gitRunner } from './git.js';
import { createProposer, type Proposer } from './proposer.js';

export { proposalBody, proposalTitle, type NewObject, type ProposalConflict } from './body.js';
export { GitError } from './git.js';
export { BranchMovedError, ForeignCommitsError } from './repository.js';
export type { Proposal, ProposalRequest, ProposalStatus, ProposedFile, Proposer } from './proposer.js';

/** The user name a token pushes as over HTTPS: GitHub takes any with a token, GitLab wants oauth2 for OAuth tokens. */
const PUSH_USER = { github: 'x-access-token', gitlab: 'oauth2', none: 'obsync' } as const;

export interface ProposerEnvironment {
  /** PATH and HOME for git (read by the CLI). */
  path: string | undefined;
  home: string | undefined;
  proxy?: ProxySettings | undefined;
  now?: () => number;
}

export function proposerFor(
  settings: WriteBackSettings,
  environment: ProposerEnvironment,
): { proposer: Proposer; dispose: () => Promise<void> } {
  mkdirSync(settings.cloneDir, { recursive: true });
  const token = settings.forge.token;
  const overHttp = /^https?:\/\//i.test(settings.repository);
  const auth =
    token && overHttp
      ? {
          repository: settings.repository,
          header: new Secret(`Basic ${Buffer.from(`${PUSH_USER[settings.forge.type]}:${token.reveal()}`).toString('base64')}`),
        }
      : undefined;
  const git = gitRunner({ cwd: settings.cloneDir, path: environment.path, home: environment.home, author: settings.author, auth });
  const forge = createForge(settings.forge, environment.proxy);
  const proposer = createProposer({ settings, git, forge, ...(environment.now ? { now: environment.now } : {}) });
  return { proposer, dispose: async () => forge?.dispose() };
}
