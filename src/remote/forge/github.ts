/**
 * GitHub's REST API for pull requests (API version 2022-11-28), the calls and fields write-back
 * uses, as GitHub documents them:
 * - list: `GET /repos/{owner}/{repo}/pulls?state=open&head={owner}:{branch}&base={base}`
 *   (docs.github.com/en/rest/pulls/pulls#list-pull-requests)
 * - create: `POST /repos/{owner}/{repo}/pulls` with `{title, head, base, body}`, answered 201
 *   (docs.github.com/en/rest/pulls/pulls#create-a-pull-request)
 * - update and close: `PATCH /repos/{owner}/{repo}/pulls/{pull_number}` with `{title, body}` or
 *   `{state: "closed"}` (docs.github.com/en/rest/pulls/pulls#update-a-pull-request)
 * The answer is GitHub's `pull-request` object; only the fields used are read (zod, unknown keys kept out).
 */
import * as z from 'zod';
import { Secret } from '../../core/secret.js';
import type { ProxySettings } from '../network.js';
import type { ForgeClient, ReviewRequest } from './forge.js';
import { forgeHttp } from './http.js';

export const githubPullRequest = z.object({
  number: z.number().int().positive(),
  html_url: z.string().min(1),
  state: z.enum(['open', 'closed']),
  created_at: z.string().min(1),
  title: z.string(),
  body: z.string().nullable(),
  head: z.object({ ref: z.string() }),
  base: z.object({ ref: z.string() }),
});
type GithubPullRequest = z.infer<typeof githubPullRequest>;

export function githubForge(opts: { apiUrl: string; project: string; token: Secret; proxy?: ProxySettings | undefined }): ForgeClient {
  const http = forgeHttp({
    apiUrl: opts.apiUrl,
    auth: { header: 'authorization', value: bearer(opts.token) },
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    proxy: opts.proxy,
  });
  const [owner = ''] = opts.project.split('/');
  const repo = `/repos/${opts.project.split('/').map(encodeURIComponent).join('/')}`;
  return {
    async findOpen(branch, base) {
      const query = new URLSearchParams({ state: 'open', head: `${owner}:${branch}`, base, per_page: '10' });
      const list = await http.send('GET', `${repo}/pulls?${query.toString()}`, z.array(githubPullRequest));
      const own = list.find((pr) => pr.head.ref === branch && pr.base.ref === base);
      return own ? request(own) : undefined;
    },
    async open(branch, base, text) {
      return request(
        await http.send('POST', `${repo}/pulls`, githubPullRequest, { title: text.title, head: branch, base, body: text.body }),
      );
    },
    async update(number, text) {
      return request(await http.send('PATCH', `${repo}/pulls/${number}`, githubPullRequest, { title: text.title, body: text.body }));
    },
    async close(number) {
      await http.send('PATCH', `${repo}/pulls/${number}`, githubPullRequest, { state: 'closed' });
    },
    dispose: () => http.close(),
  };
}

function request(pr: GithubPullRequest): ReviewRequest {
  return { number: pr.number, url: pr.html_url, createdAt: pr.created_at, title: pr.title, body: pr.body ?? '' };
}

/** `Bearer TOKEN`, itself a secret (the scrubber knows the token already; the header is masked whole too). */
function bearer(token: Secret): Secret {
  return new Secret(`Bearer ${token.reveal()}`);
}
