/**
 * GitHub's and GitLab's review-request endpoints on loopback, for the write-back tests. Requests
 * are checked against the shapes the forges document (hand-written here from their REST docs:
 * @octokit/openapi, GitHub's own description, unpacks to about 440 MB, too much for a dev
 * dependency), strictly: an unknown body field, a missing header or a wrong type is recorded in
 * `violations` and answered 422, as the forges do. Answers carry the documented fields of a pull
 * request (docs.github.com/en/rest/pulls/pulls) and a merge request (docs.gitlab.com/api/merge_requests).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';

// GitHub: "Create a pull request" / "Update a pull request" request bodies, and the list's query.
const githubCreate = z.strictObject({
  title: z.string().min(1),
  head: z.string().min(1),
  base: z.string().min(1),
  body: z.string().max(65_536).optional(),
  draft: z.boolean().optional(),
  maintainer_can_modify: z.boolean().optional(),
});
const githubUpdate = z.strictObject({
  title: z.string().optional(),
  body: z.string().max(65_536).optional(),
  state: z.enum(['open', 'closed']).optional(),
  base: z.string().optional(),
  maintainer_can_modify: z.boolean().optional(),
});
const githubListQuery = z.strictObject({
  state: z.enum(['open', 'closed', 'all']).optional(),
  head: z
    .string()
    .regex(/^[^:]+:.+$/, 'user:ref-name')
    .optional(),
  base: z.string().optional(),
  per_page: z.coerce.number().int().min(1).max(100).optional(),
});
// GitLab: "Create MR" / "Update MR" attributes, and "List project merge requests" filters.
const gitlabCreate = z.strictObject({
  source_branch: z.string().min(1),
  target_branch: z.string().min(1),
  title: z.string().min(1),
  description: z.string().max(1_048_576).optional(),
  remove_source_branch: z.boolean().optional(),
});
const gitlabUpdate = z.strictObject({
  title: z.string().optional(),
  description: z.string().max(1_048_576).optional(),
  state_event: z.enum(['close', 'reopen']).optional(),
});
const gitlabListQuery = z.strictObject({
  state: z.enum(['opened', 'closed', 'locked', 'merged', 'all']).optional(),
  source_branch: z.string().optional(),
  target_branch: z.string().optional(),
  per_page: z.coerce.number().int().min(1).max(100).optional(),
});

interface Stored {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  open: boolean;
  createdAt: string;
}

export interface FakeForge {
  apiUrl: string;
  requests: { method: string; path: string; body: unknown; headers: Record<string, string | string[] | undefined> }[];
  violations: string[];
  stored: Stored[];
  /** The next answers are this status (an expired token: 401). */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

export async function fakeForge(type: 'github' | 'gitlab', opts: { token: string; project: string }): Promise<FakeForge> {
  const stored: Stored[] = [];
  const requests: FakeForge['requests'] = [];
  const violations: string[] = [];
  let failing: number | undefined;
  let origin = '';
  const githubPr = (s: Stored) => ({
    id: 1000 + s.number,
    number: s.number,
    node_id: `PR_${s.number}`,
    url: `${origin}/repos/${opts.project}/pulls/${s.number}`,
    html_url: `https://github.example/${opts.project}/pull/${s.number}`,
    state: s.open ? 'open' : 'closed',
    locked: false,
    title: s.title,
    body: s.body === '' ? null : s.body,
    user: { login: 'obsync-bot', id: 7, type: 'Bot' },
    created_at: s.createdAt,
    updated_at: s.createdAt,
    closed_at: s.open ? null : s.createdAt,
    merged_at: null,
    draft: false,
    head: { label: `${opts.project.split('/')[0]}:${s.head}`, ref: s.head, sha: 'a'.repeat(40) },
    base: { label: `${opts.project.split('/')[0]}:${s.base}`, ref: s.base, sha: 'b'.repeat(40) },
  });
  const gitlabMr = (s: Stored) => ({
    id: 5000 + s.number,
    iid: s.number,
    project_id: 42,
    title: s.title,
    description: s.body,
    state: s.open ? 'opened' : 'closed',
    created_at: s.createdAt,
    updated_at: s.createdAt,
    source_branch: s.head,
    target_branch: s.base,
    web_url: `https://gitlab.example/${opts.project}/-/merge_requests/${s.number}`,
    author: { id: 7, username: 'obsync-bot' },
  });
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body: unknown = raw === '' ? undefined : JSON.parse(raw);
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, body, headers: req.headers });
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const violate = (what: string) => {
        violations.push(`${req.method} ${url.pathname}: ${what}`);
        send(422, { message: 'Validation Failed', errors: [what] });
      };
      const check = <T>(schema: z.ZodType<T>, value: unknown): T | undefined => {
        const r = schema.safeParse(value);
        if (!r.success) violate(r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '));
        return r.success ? r.data : undefined;
      };
      if (failing !== undefined) return send(failing, { message: 'Bad credentials' });
      const query = Object.fromEntries(url.searchParams);
      if (type === 'github') {
        if (req.headers.authorization !== `Bearer ${opts.token}`) return send(401, { message: 'Bad credentials' });
        if (req.headers.accept !== 'application/vnd.github+json') return violate('accept header');
        if (req.headers['x-github-api-version'] !== '2022-11-28') return violate('x-github-api-version header');
        if (!req.headers['user-agent']) return violate('user-agent header');
        const base = `/repos/${opts.project}/pulls`;
        const one = new RegExp(`^${base}/(\\d+)$`).exec(url.pathname);
        if (url.pathname === base && req.method === 'GET') {
          const q = check(githubListQuery, query);
          if (!q) return;
          const list = stored.filter(
            (s) => (q.state === 'all' || s.open) && (!q.head || q.head.endsWith(`:${s.head}`)) && (!q.base || q.base === s.base),
          );
          return send(200, list.map(githubPr));
        }
        if (url.pathname === base && req.method === 'POST') {
          const b = check(githubCreate, body);
          if (!b) return;
          if (stored.some((s) => s.open && s.head === b.head && s.base === b.base)) return violate('A pull request already exists');
          const s = {
            number: stored.length + 1,
            title: b.title,
            body: b.body ?? '',
            head: b.head,
            base: b.base,
            open: true,
            createdAt: '2026-11-29T08:00:00Z',
          };
          stored.push(s);
          return send(201, githubPr(s));
        }
        const s = one ? stored.find((x) => x.number === Number(one[1])) : undefined;
        if (s && req.method === 'PATCH') {
          const b = check(githubUpdate, body);
          if (!b) return;
          if (b.title !== undefined) s.title = b.title;
          if (b.body !== undefined) s.body = b.body;
          if (b.state !== undefined) s.open = b.state === 'open';
          return send(200, githubPr(s));
        }
        return send(404, { message: 'Not Found' });
      }
      if (req.headers['private-token'] !== opts.token) return send(401, { message: '401 Unauthorized' });
      const base = `/api/v4/projects/${encodeURIComponent(opts.project)}/merge_requests`;
      const raw_path = req.url?.split('?')[0] ?? '';
      const one = new RegExp(`^${base.replace(/[.%]/g, (c) => `\\${c}`)}/(\\d+)$`).exec(raw_path);
      if (raw_path === base && req.method === 'GET') {
        const q = check(gitlabListQuery, query);
        if (!q) return;
        const list = stored.filter(
          (s) =>
            (q.state === 'all' || s.open) &&
            (!q.source_branch || q.source_branch === s.head) &&
            (!q.target_branch || q.target_branch === s.base),
        );
        return send(200, list.map(gitlabMr));
      }
      if (raw_path === base && req.method === 'POST') {
        const b = check(gitlabCreate, body);
        if (!b) return;
        const s = {
          number: stored.length + 1,
          title: b.title,
          body: b.description ?? '',
          head: b.source_branch,
          base: b.target_branch,
          open: true,
          createdAt: '2026-11-29T08:00:00.000Z',
        };
        stored.push(s);
        return send(201, gitlabMr(s));
      }
      const s = one ? stored.find((x) => x.number === Number(one[1])) : undefined;
      if (s && req.method === 'PUT') {
        const b = check(gitlabUpdate, body);
        if (!b) return;
        if (b.title !== undefined) s.title = b.title;
        if (b.description !== undefined) s.body = b.description;
        if (b.state_event !== undefined) s.open = b.state_event === 'reopen';
        return send(200, gitlabMr(s));
      }
      return send(404, { message: '404 Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: type === 'github' ? origin : `${origin}/api/v4`,
    requests,
    violations,
    stored,
    failWith: (status) => {
      failing = status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
