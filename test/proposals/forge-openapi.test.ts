/**
 * The fake GitHub's checks (test/support/openapi-operations.ts) against the vendored subset of
 * GitHub's OpenAPI description: what a client could get wrong is refused, and the subset is whole
 * (every `$ref` resolves inside it) and says where it comes from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Description, operationChecker } from '../support/openapi-operations.js';

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
