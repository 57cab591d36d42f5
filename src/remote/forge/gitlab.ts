/**
 * GitLab's REST API v4 for merge requests, the calls and fields write-back uses, as GitLab
 * documents them (docs.gitlab.com/api/merge_requests):
 * - list: `GET /projects/:id/merge_requests?state=opened&source_branch=…&target_branch=…`
 *   (":id" is the URL-encoded project path; "List project merge requests")
 * - create: `POST /projects/:id/merge_requests` with `{source_branch, target_branch, title,
 *   description, remove_source_branch}`, answered 201 ("Create MR")
 * - update and close: `PUT /projects/:id/merge_requests/:merge_request_iid` with `{title,
 *   description}` or `{state_event: "close"}` ("Update MR")
 * Authenticated with the `PRIVATE-TOKEN` header ("REST API authentication"). Only the fields used
 * are read from GitLab's merge request object.
 */
import * as z from 'zod';
import type { Secret } from '../../core/secret.js';
import type { ProxySettings } from '../network.js';
import type { ForgeClient, ReviewRequest } from './forge.js';
import { forgeHttp } from './http.js';

export const gitlabMergeRequest = z.object({
  iid: z.number().int().positive(),
  web_url: z.string().min(1),
  state: z.enum(['opened', 'closed', 'locked', 'merged']),
  created_at: z.string().min(1),
  title: z.string(),
  description: z.string().nullable(),
  source_branch: z.string(),
  target_branch: z.string(),
});
type GitlabMergeRequest = z.infer<typeof gitlabMergeRequest>;

export function gitlabForge(opts: { apiUrl: string; project: string; token: Secret; proxy?: ProxySettings | undefined }): ForgeClient {
  const http = forgeHttp({ apiUrl: opts.apiUrl, auth: { header: 'private-token', value: opts.token }, proxy: opts.proxy });
  const project = `/projects/${encodeURIComponent(opts.project)}`;
  return {
    async findOpen(branch, base) {
      const query = new URLSearchParams({ state: 'opened', source_branch: branch, target_branch: base, per_page: '10' });
      const list = await http.send('GET', `${project}/merge_requests?${query.toString()}`, z.array(gitlabMergeRequest));
      const own = list.find((mr) => mr.source_branch === branch && mr.target_branch === base && mr.state === 'opened');
      return own ? request(own) : undefined;
    },
    async open(branch, base, text) {
      const body = { source_branch: branch, target_branch: base, title: text.title, description: text.body, remove_source_branch: true };
      return request(await http.send('POST', `${project}/merge_requests`, gitlabMergeRequest, body));
    },
    async update(number, text) {
      return request(
        await http.send('PUT', `${project}/merge_requests/${number}`, gitlabMergeRequest, { title: text.title, description: text.body }),
      );
    },
    async close(number) {
      await http.send('PUT', `${project}/merge_requests/${number}`, gitlabMergeRequest, { state_event: 'close' });
    },
    dispose: () => http.close(),
  };
}

function request(mr: GitlabMergeRequest): ReviewRequest {
  return { number: mr.iid, url: mr.web_url, createdAt: mr.created_at, title: mr.title, body: mr.description ?? '' };
}
