/**
 * `drift:` and `writeBack:` of obsync.yaml (issue 41), per target or under `defaults`: what the
 * daemon does with drift, and where a proposal goes (the Git repository the manifests come from,
 * and the forge that hosts it). Every level is partial here — a target's settings are laid over
 * the defaults' (./write-back.ts) and the result must then be complete.
 */
import * as z from 'zod';
import { durationMs } from '../core/duration.js';
import { parseUnmanagedSelector } from '../writeback/selector.js';
import { HTTP_URL, urlSetting } from './url-setting.js';

export const DRIFT_MODES = ['revert', 'report', 'propose'] as const;
export type DriftMode = (typeof DRIFT_MODES)[number];

export const driftSetting = z
  .enum(DRIFT_MODES)
  .describe(
    'What obsync run does with drift (an owned object changed on the service): revert puts it back (obsync run --mode apply), ' +
      'report only reports it (--mode plan), propose commits the live state to a branch and opens one pull or merge request per ' +
      'target (writeBack). Default: as --mode says.',
  );

/** A repository URL obsync clones and pushes to: https, http, ssh or file; never with credentials in it. */
export const REPOSITORY_URL_PATTERN = String.raw`^([hH][tT][tT][pP][sS]?|[sS][sS][hH]|[fF][iI][lL][eE])://\S+$`;
const REPOSITORY_RULE = 'a repository is an https://, http://, ssh:// or file:// URL';

export const repositoryUrl = z
  .string()
  .regex(new RegExp(REPOSITORY_URL_PATTERN), REPOSITORY_RULE)
  .refine(
    (url) => !hasUserinfo(url),
    'the repository URL must not hold credentials (a token or password): give the token as writeBack.forge.token',
  )
  .describe('URL of the Git repository the manifests come from (https://, http://, ssh:// or file://), without credentials.');

/** A branch name Git accepts (check-ref-format, kept simple): no "..", "//", leading "-" or "/", trailing "/" or ".lock". */
export const BRANCH_PATTERN = String.raw`^(?!-)(?!/)(?!.*\.\.)(?!.*//)(?!.*@\{)(?!.*\.lock$)(?!.*/$)[A-Za-z0-9._/-]+$`;
const branchName = z
  .string()
  .regex(
    new RegExp(BRANCH_PATTERN),
    'a branch name Git accepts: letters, digits, ".", "_", "-" and "/", without "..", "//", a leading "-" or "/", or a trailing "/" ' +
      'or ".lock"',
  );

/** A directory inside the repository: relative, no ".." segment. */
export const REPO_PATH_PATTERN = String.raw`^(?!/)(?!.*(^|/)\.\.(/|$))[^\x00-\x1F\x7F\\]*$`;
const repoPath = z.string().regex(new RegExp(REPO_PATH_PATTERN), 'a directory inside the repository: relative, without ".."');

const oneLine = z.string().min(1).regex(new RegExp(String.raw`^[^\x00-\x1F\x7F<>]+$`), 'one line without control characters, "<" or ">"');

export const FORGE_TYPES = ['github', 'gitlab', 'none'] as const;
export type ForgeType = (typeof FORGE_TYPES)[number];

const forgeConfig = z
  .strictObject({
    type: z
      .enum(FORGE_TYPES)
      .optional()
      .describe(
        'github (pull requests), gitlab (merge requests) or none (the branch is pushed, nothing is opened; any Git host). Default none.',
      ),
    apiUrl: urlSetting('the forge API URL', HTTP_URL, 'https://api.github.com')
      .optional()
      .describe('Base URL of the forge API (default https://api.github.com for github, https://gitlab.com/api/v4 for gitlab).'),
    token: z
      .string()
      .min(1)
      .optional()
      .meta({
        sensitive: true,
        description:
          'Token for the forge API and for pushing over HTTPS, usually "${env:NAME}" (OBSYNC_FORGE_TOKEN, or OBSYNC_FORGE_TOKEN_FILE, ' +
          'is used when this is not set). Sensitive: never printed, logged, committed or shown.',
      }),
    project: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/, 'a project is OWNER/NAME (GitLab: GROUP/SUBGROUP/NAME)')
      .optional()
      .describe('The repository on the forge: OWNER/NAME (GitLab: the project path, GROUP/…/NAME). Needed for github and gitlab.'),
  })
  .meta({ id: 'WriteBackForge', description: 'The forge hosting the repository, where pull or merge requests are opened.' });

export const writeBackConfig = z
  .strictObject({
    repository: repositoryUrl.optional(),
    branch: branchName.optional().describe('The base branch proposals are made against (default main).'),
    path: repoPath
      .optional()
      .describe("The directory of the repository that holds this obsync.yaml's directory (default: the repository's root)."),
    author: z
      .strictObject({
        name: oneLine.optional().describe('Author and committer name of proposal commits (default obsync).'),
        email: oneLine.optional().describe('Author and committer email of proposal commits (default obsync@localhost).'),
      })
      .optional()
      .describe('Who proposal commits are by.'),
    forge: forgeConfig.optional(),
    include: z
      .string()
      .superRefine((text, ctx) => {
        const problem = selectorProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', message: `a selector of objects made on the service: ${problem}` });
      })
      .optional()
      .describe(
        "Objects made in the service's UI that this selector picks (Kind, tag=NAME, name=REGEX; a comma: all must hold, e.g. " +
          '"tag=gitops") are proposed as new manifests (drift: propose), where obsync export would put them; obsync pull writes ' +
          "them too when --include-unmanaged is not given (the defaults' selector). Default: none.",
      ),
    proposalMaxAge: z
      .string()
      .refine((text) => durationMs(text, 'mhd') !== null, 'an age like 90m, 72h or 7d (minutes, hours or days)')
      .optional()
      .describe(
        'A proposal open longer than this falls back to revert: the daemon puts the objects back as the manifests say and closes ' +
          'the request (default: never).',
      ),
  })
  .meta({
    id: 'WriteBack',
    description:
      'Where drift: propose sends the live state: a branch obsync/propose/<target> of this repository (its own clone under the ' +
      "state directory), and one pull or merge request per target. A target's settings are laid over those of defaults.",
  });
export type WriteBackConfig = z.infer<typeof writeBackConfig>;

/** A user or token before the host (ssh may name its user, `ssh://git@host/…`, but no password). */
function hasUserinfo(url: string): boolean {
  const [, scheme = '', authority = ''] = /^([a-z]+):\/\/([^/?#]*)/i.exec(url) ?? [];
  const userinfo = authority.includes('@') ? authority.slice(0, authority.lastIndexOf('@')) : undefined;
  if (userinfo === undefined) return false;
  return scheme.toLowerCase() !== 'ssh' || userinfo.includes(':');
}

function selectorProblem(text: string): string | undefined {
  try {
    parseUnmanagedSelector(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
