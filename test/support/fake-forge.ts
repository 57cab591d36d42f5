/**
 * GitHub's and GitLab's review-request endpoints on loopback, for the write-back tests.
 *
 * GitHub: every request is checked against the operations of GitHub's own OpenAPI description
 * (test/support/forge-openapi/github.json: pulls/list, pulls/create and pulls/update cut from
 * @octokit/openapi with every `$ref` they reach, by scripts/forge-openapi-subset.js; its
 * `info.x-obsync-subset` says from which file and version) — path, query and body, with a body
 * field or query parameter the operation does not list refused too (test/support/openapi-operations.ts).
 * The answers are the description's own examples with the stored values in, and are checked
 * against the operation's response schema as well: a fake that drifted from GitHub fails the test.
 *
 * GitLab: the same against GitLab's own description (test/support/forge-openapi/gitlab.json: the
 * list, create and update merge-request operations of doc/api/openapi/openapi_v2.yaml, Swagger 2.0,
 * cut by the same script; read in OpenAPI 3.0's shape by test/support/swagger2.ts). Its answers are
 * checked too; GitLab's description lists no required answer fields, so the types of those present
 * are what is held, and the list answer is checked item by item (see `gitlabAnswerProblems`).
 *
 * A violation is recorded in `violations` and answered 422, as the forges do; a missing or wrong
 * token is answered 401.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Description, operationChecker } from './openapi-operations.js';
import { openApiFromSwagger2, type Swagger2Description } from './swagger2.js';

const github = JSON.parse(readFileSync(new URL('./forge-openapi/github.json', import.meta.url), 'utf8')) as Description & {
  components: { examples: Record<string, { value: unknown }> };
};
const githubChecks = operationChecker(github);
const githubExample = github.components.examples['pull-request']?.value as Record<string, unknown>;

const gitlab = JSON.parse(readFileSync(new URL('./forge-openapi/gitlab.json', import.meta.url), 'utf8')) as Swagger2Description;
const gitlabChecks = operationChecker(openApiFromSwagger2(gitlab));
const GITLAB_LIST = 'getApiV4ProjectsIdMergeRequests';

/**
 * GitLab's description gives "List project merge requests" one `API_Entities_MergeRequestBasic` as
 * its 200 schema (grape-swagger without `is_array`), while GitLab answers an array of them
 * (docs.gitlab.com/api/merge_requests): that answer must be an array, each item checked.
 */
function gitlabAnswerProblems(operationId: string, status: number, value: unknown): string[] {
  if (operationId !== GITLAB_LIST) return gitlabChecks.response(operationId, status, value);
  if (!Array.isArray(value)) return ['answer: a list of merge requests must be an array'];
  return value.flatMap((item, i) => gitlabChecks.response(operationId, status, item).map((p) => `[${i}] ${p}`));
}

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
  const owner = opts.project.split('/')[0] ?? '';
  /** GitHub's example pull request, with the stored values and this fake's URLs in. */
  const githubPr = (s: Stored) => ({
    ...githubExample,
    id: 1000 + s.number,
    number: s.number,
    node_id: `PR_${s.number}`,
    url: `${origin}/repos/${opts.project}/pulls/${s.number}`,
    html_url: `https://github.example/${opts.project}/pull/${s.number}`,
    state: s.open ? 'open' : 'closed',
    title: s.title,
    body: s.body === '' ? null : s.body,
    created_at: s.createdAt,
    updated_at: s.createdAt,
    closed_at: s.open ? null : s.createdAt,
    merged_at: null,
    draft: false,
    // None requested; the example's team also lacks `type` and `parent`, which the schema requires.
    requested_reviewers: [],
    requested_teams: [],
    head: { ...(githubExample.head as object), label: `${owner}:${s.head}`, ref: s.head, sha: 'a'.repeat(40) },
    base: { ...(githubExample.base as object), label: `${owner}:${s.base}`, ref: s.base, sha: 'b'.repeat(40) },
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
    author: { id: 7, username: 'obsync-bot', name: 'obsync', state: 'active', web_url: 'https://gitlab.example/obsync-bot' },
  });
  type Answer = (status: number, value: unknown) => void;
  function answerGithub(
    operationId: string,
    params: Record<string, string>,
    q: Record<string, string>,
    b: Record<string, unknown>,
    answer: Answer,
  ) {
    const text = (key: string) => (typeof b[key] === 'string' ? (b[key] as string) : undefined);
    if (operationId === 'pulls/list') {
      const list = stored.filter(
        (s) => (q.state === 'all' || s.open) && (!q.head || q.head === `${owner}:${s.head}`) && (!q.base || q.base === s.base),
      );
      return answer(200, list.map(githubPr));
    }
    if (operationId === 'pulls/create') {
      const [head, base] = [text('head') ?? '', text('base') ?? ''];
      if (stored.some((s) => s.open && s.head === head && s.base === base))
        return answer(422, validationFailed('A pull request already exists'));
      const s = {
        number: stored.length + 1,
        title: text('title') ?? '',
        body: text('body') ?? '',
        head,
        base,
        open: true,
        createdAt: '2026-11-29T08:00:00Z',
      };
      stored.push(s);
      return answer(201, githubPr(s));
    }
    const s = stored.find((x) => x.number === Number(params.pull_number));
    if (!s) return answer(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/pulls/pulls' });
    s.title = text('title') ?? s.title;
    s.body = text('body') ?? s.body;
    if (b.state !== undefined) s.open = b.state === 'open';
    return answer(200, githubPr(s));
  }
  function answerGitlab(
    operationId: string,
    params: Record<string, string>,
    q: Record<string, string>,
    b: Record<string, unknown>,
    answer: Answer,
    send: Answer,
  ) {
    const text = (key: string) => (typeof b[key] === 'string' ? (b[key] as string) : undefined);
    if (operationId === GITLAB_LIST) {
      const list = stored.filter(
        (s) =>
          (q.state === 'all' || s.open) &&
          (!q.source_branch || q.source_branch === s.head) &&
          (!q.target_branch || q.target_branch === s.base),
      );
      return answer(200, list.map(gitlabMr));
    }
    if (operationId === 'postApiV4ProjectsIdMergeRequests') {
      const [head, base] = [text('source_branch') ?? '', text('target_branch') ?? ''];
      const existing = stored.find((s) => s.open && s.head === head && s.base === base);
      if (existing)
        return send(409, { message: [`Another open merge request already exists for this source branch: !${existing.number}`] });
      const s: Stored = {
        number: stored.length + 1,
        title: text('title') ?? '',
        body: text('description') ?? '',
        head,
        base,
        open: true,
        createdAt: '2026-11-29T08:00:00.000Z',
      };
      stored.push(s);
      return answer(201, gitlabMr(s));
    }
    const s = stored.find((x) => x.number === Number(params.merge_request_iid));
    if (!s) return send(404, { message: '404 Not found' });
    s.title = text('title') ?? s.title;
    s.body = text('description') ?? s.body;
    if (b.state_event !== undefined) s.open = b.state_event === 'reopen';
    return answer(200, gitlabMr(s));
  }
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
        send(422, type === 'github' ? validationFailed(what) : { message: 'Validation Failed', errors: [what] });
      };
      if (failing !== undefined) return send(failing, { message: 'Bad credentials' });
      const query = Object.fromEntries(url.searchParams);
      if (type === 'github') {
        if (req.headers.authorization !== `Bearer ${opts.token}`) return send(401, { message: 'Bad credentials' });
        if (req.headers.accept !== 'application/vnd.github+json') return violate('accept header');
        if (req.headers['x-github-api-version'] !== '2022-11-28') return violate('x-github-api-version header');
        if (!req.headers['user-agent']) return violate('user-agent header');
        const op = githubChecks.request({ method: req.method ?? '', pathname: url.pathname, query, body });
        if (!op) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
        if (op.problems.length > 0) return violate(op.problems.join('; '));
        if (`${op.pathParams.owner}/${op.pathParams.repo}` !== opts.project) return send(404, { message: 'Not Found' });
        const answer = (status: number, value: unknown) => {
          for (const problem of githubChecks.response(op.operationId, status, value))
            violations.push(`the fake's ${op.operationId} ${problem}`);
          send(status, value);
        };
        return answerGithub(op.operationId, op.pathParams, query, body as Record<string, unknown>, answer);
      }
      if (req.headers['private-token'] !== opts.token) return send(401, { message: '401 Unauthorized' });
      const op = gitlabChecks.request({ method: req.method ?? '', pathname: url.pathname, query, body });
      if (!op) return send(404, { error: '404 Not Found' });
      if (op.problems.length > 0) return violate(op.problems.join('; '));
      if (op.pathParams.id !== opts.project) return send(404, { message: '404 Project Not Found' });
      const answer = (status: number, value: unknown) => {
        for (const problem of gitlabAnswerProblems(op.operationId, status, value))
          violations.push(`the fake's ${op.operationId} ${problem}`);
        send(status, value);
      };
      // GitLab's conflict and not-found answers have no schema in its description: sent as they are.
      return answerGitlab(op.operationId, op.pathParams, query, body as Record<string, unknown>, answer, send);
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

/** GitHub's `validation-error` answer. */
function validationFailed(what: string) {
  return {
    message: 'Validation Failed',
    documentation_url: 'https://docs.github.com/rest/pulls/pulls',
    errors: [{ resource: 'PullRequest', code: 'invalid', message: what }],
  };
}
