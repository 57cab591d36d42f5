/**
 * The fake forges' checks (test/support/openapi-operations.ts) against the vendored subsets of
 * GitHub's OpenAPI 3.0 and GitLab's Swagger 2.0 descriptions: what a client could get wrong is
 * refused, and each subset is whole (every `$ref` resolves inside it) and says where it comes from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Description, operationChecker } from '../support/openapi-operations.js';
import { openApiFromSwagger2, type Swagger2Description } from '../support/swagger2.js';

const text = readFileSync(new URL('../support/forge-openapi/github.json', import.meta.url), 'utf8');
const github = JSON.parse(text) as Description & { info: Record<string, unknown> };
const checks = operationChecker(github);
const pulls = '/repos/acme/observability/pulls';
const create = (body: unknown) => checks.request({ method: 'POST', pathname: pulls, query: {}, body });

describe("GitHub's description, as the fake forge applies it", () => {
  it('takes the requests obsync sends', () => {
    expect(create({ title: 't', head: 'obsync/propose/x', base: 'main', body: 'plan' })).toEqual({
      operationId: 'pulls/create',
      pathParams: { owner: 'acme', repo: 'observability' },
      problems: [],
    });
    const list = checks.request({
      method: 'GET',
      pathname: pulls,
      query: { state: 'open', head: 'acme:b', base: 'main', per_page: '10' },
      body: undefined,
    });
    expect(list?.problems).toEqual([]);
    const close = checks.request({ method: 'PATCH', pathname: `${pulls}/3`, query: {}, body: { state: 'closed' } });
    expect(close).toMatchObject({ operationId: 'pulls/update', pathParams: { pull_number: '3' }, problems: [] });
  });

  it('refuses a body field the operation does not list, a missing required one and a wrong type', () => {
    expect(create({ title: 't', head: 'h', base: 'main', labels: ['x'] })?.problems).toEqual([
      'body must NOT have additional properties ("labels")',
    ]);
    expect(create({ title: 't', base: 'main' })?.problems).toEqual(['body must have required property \'head\' ("head")']);
    expect(create({ title: 't', head: 'h', base: 'main', draft: 'yes' })?.problems).toEqual(['body/draft must be boolean']);
    expect(create(undefined)?.problems).toEqual(['body: required']);
    const state = checks.request({ method: 'PATCH', pathname: `${pulls}/3`, query: {}, body: { state: 'merged' } });
    expect(state?.problems).toEqual(['body/state must be equal to one of the allowed values (["open","closed"])']);
  });

  it('refuses an unknown query parameter, a value out of its enum and a path parameter of the wrong type', () => {
    const list = (query: Record<string, string>) => checks.request({ method: 'GET', pathname: pulls, query, body: undefined })?.problems;
    expect(list({ status: 'open' })).toEqual(['query must NOT have additional properties ("status")']);
    expect(list({ state: 'opened' })).toEqual(['query/state must be equal to one of the allowed values (["open","closed","all"])']);
    expect(list({ per_page: 'ten' })).toEqual(['query/per_page must be integer']);
    const patch = checks.request({ method: 'PATCH', pathname: `${pulls}/three`, query: {}, body: {} });
    expect(patch?.problems).toEqual(['path/pull_number must be integer']);
    expect(checks.request({ method: 'PUT', pathname: `${pulls}/3`, query: {}, body: {} })).toBeUndefined();
  });

  it('checks the answers too: required fields and their types, `nullable` as OpenAPI 3.0 means it', () => {
    const example = (github.components.examples?.['pull-request'] as { value: Record<string, unknown> }).value;
    const pr = { ...example, requested_teams: [], body: null, closed_at: null };
    expect(checks.response('pulls/create', 201, pr)).toEqual([]);
    expect(checks.response('pulls/create', 201, { ...pr, number: '1' })).toEqual(['answer 201/number must be integer']);
    expect(checks.response('pulls/create', 201, { ...pr, html_url: undefined })).toEqual([
      'answer 201 must have required property \'html_url\' ("html_url")',
    ]);
    expect(checks.response('pulls/update', 200, { ...pr, title: null })).toEqual(['answer 200/title must be string']);
  });

  it('is the official text cut down: every $ref resolves inside it, and it names its source', () => {
    const refs = [...text.matchAll(/"\$ref": "#\/components\/([^/]+)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(20);
    for (const [, section = '', name = ''] of refs) expect(github.components[section]?.[name], `${section}/${name}`).toBeDefined();
    expect(github.info['x-obsync-subset']).toMatchObject({
      source: expect.stringMatching(/^@octokit\/openapi@\d+\.\d+\.\d+:generated\/api\.github\.com\.json$/) as unknown,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      operations: ['pulls/list', 'pulls/create', 'pulls/update'],
    });
  });
});

const gitlabText = readFileSync(new URL('../support/forge-openapi/gitlab.json', import.meta.url), 'utf8');
const gitlab = JSON.parse(gitlabText) as Swagger2Description;
const gitlabChecks = operationChecker(openApiFromSwagger2(gitlab));
const mrs = '/api/v4/projects/acme%2Fplatform%2Fobservability/merge_requests';
const gitlabRequest = (method: string, pathname: string, body: unknown, query: Record<string, string> = {}) =>
  gitlabChecks.request({ method, pathname, query, body });

describe("GitLab's description (Swagger 2.0), as the fake forge applies it", () => {
  it('takes the requests obsync sends', () => {
    const query = { state: 'opened', source_branch: 'obsync/propose/x', target_branch: 'main', per_page: '10' };
    expect(gitlabRequest('GET', mrs, undefined, query)).toEqual({
      operationId: 'getApiV4ProjectsIdMergeRequests',
      pathParams: { id: 'acme/platform/observability' },
      problems: [],
    });
    const open = { source_branch: 'obsync/propose/x', target_branch: 'main', title: 't', description: 'plan', remove_source_branch: true };
    expect(gitlabRequest('POST', mrs, open)?.problems).toEqual([]);
    expect(gitlabRequest('PUT', `${mrs}/3`, { title: 't', description: 'plan' })).toMatchObject({
      operationId: 'putApiV4ProjectsIdMergeRequestsMergeRequestIid',
      pathParams: { merge_request_iid: '3' },
      problems: [],
    });
    expect(gitlabRequest('PUT', `${mrs}/3`, { state_event: 'close' })?.problems).toEqual([]);
  });

  it('refuses a body field the operation does not list, a missing required one, a wrong type and a value out of its enum', () => {
    const open = { source_branch: 'b', target_branch: 'main', title: 't' };
    expect(gitlabRequest('POST', mrs, { ...open, descripton: 'plan' })?.problems).toEqual([
      'body must NOT have additional properties ("descripton")',
    ]);
    expect(gitlabRequest('POST', mrs, { source_branch: 'b', title: 't' })?.problems).toEqual([
      'body must have required property \'target_branch\' ("target_branch")',
    ]);
    expect(gitlabRequest('POST', mrs, { ...open, remove_source_branch: 'yes' })?.problems).toEqual([
      'body/remove_source_branch must be boolean',
    ]);
    expect(gitlabRequest('POST', mrs, undefined)?.problems).toEqual(['body: required']);
    expect(gitlabRequest('PUT', `${mrs}/3`, { state_event: 'closed' })?.problems).toEqual([
      'body/state_event must be equal to one of the allowed values (["close","reopen"])',
    ]);
  });

  it('refuses an unknown query parameter, a value out of its enum and a path parameter of the wrong type', () => {
    expect(gitlabRequest('GET', mrs, undefined, { status: 'opened' })?.problems).toEqual([
      'query must NOT have additional properties ("status")',
    ]);
    expect(gitlabRequest('GET', mrs, undefined, { state: 'open' })?.problems).toEqual([
      'query/state must be equal to one of the allowed values (["opened","closed","locked","merged","all"])',
    ]);
    expect(gitlabRequest('PUT', `${mrs}/three`, { title: 't' })?.problems).toEqual(['path/merge_request_iid must be integer']);
    expect(gitlabRequest('PATCH', `${mrs}/3`, { title: 't' })).toBeUndefined();
  });

  it('checks the answers: the documented types of the fields present (GitLab lists no required ones)', () => {
    const mr = { id: 5001, iid: 1, project_id: 42, title: 't', state: 'opened', created_at: '2026-11-29T08:00:00.000Z' };
    expect(gitlabChecks.response('postApiV4ProjectsIdMergeRequests', 201, mr)).toEqual([]);
    expect(gitlabChecks.response('postApiV4ProjectsIdMergeRequests', 201, { ...mr, iid: '1' })).toEqual(['answer 201/iid must be integer']);
    expect(gitlabChecks.response('putApiV4ProjectsIdMergeRequestsMergeRequestIid', 200, { ...mr, created_at: 'today' })).toEqual([
      'answer 200/created_at must match format "date-time"',
    ]);
    expect(gitlabChecks.response('getApiV4ProjectsIdMergeRequests', 200, { ...mr, author: { id: 'bot' } })).toEqual([
      'answer 200/author/id must be integer',
    ]);
  });

  it('reads Swagger 2.0 formData parameters as one JSON body and `x-nullable` as OpenAPI 3.0 `nullable` (none in the subset)', () => {
    const form = openApiFromSwagger2({
      swagger: '2.0',
      info: {},
      paths: {
        '/notes': {
          post: {
            operationId: 'postNotes',
            parameters: [
              { in: 'formData', name: 'body', type: 'string', required: true },
              { in: 'formData', name: 'confidential', type: 'boolean' },
            ],
            responses: { '201': { description: 'created', schema: { $ref: '#/definitions/Note' } } },
          },
        },
      },
      definitions: { Note: { type: 'object', properties: { body: { type: 'string', 'x-nullable': true } }, required: ['body'] } },
    });
    const notes = operationChecker(form);
    const post = (body: unknown) => notes.request({ method: 'POST', pathname: '/notes', query: {}, body })?.problems;
    expect(post({ body: 'b', confidential: false })).toEqual([]);
    expect(post({ confidential: 'no' })).toEqual([
      'body must have required property \'body\' ("body")',
      'body/confidential must be boolean',
    ]);
    expect(notes.response('postNotes', 201, { body: null })).toEqual([]);
    expect(notes.response('postNotes', 201, { body: 1 })).toEqual(['answer 201/body must be string']);
    expect(gitlabText).not.toContain('x-nullable');
  });

  it('is the official text cut down: every $ref resolves inside it, and it names its source and the windows read', () => {
    const refs = [...gitlabText.matchAll(/"\$ref": "#\/definitions\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(10);
    for (const [, name = ''] of refs) expect(gitlab.definitions[name], name).toBeDefined();
    expect(gitlab.info['x-obsync-subset']).toMatchObject({
      source: expect.stringMatching(/^gitlabhq\/gitlabhq@[0-9a-f]{40}:doc\/api\/openapi\/openapi_v2\.yaml$/) as unknown,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      note: expect.stringMatching(/586000 .*1560000/) as unknown,
      operations: ['getApiV4ProjectsIdMergeRequests', 'postApiV4ProjectsIdMergeRequests', 'putApiV4ProjectsIdMergeRequestsMergeRequestIid'],
    });
  });
});
