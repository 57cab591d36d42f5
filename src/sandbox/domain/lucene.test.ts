import { describe, expect, it } from 'vitest';
import { luceneSyntaxError } from './lucene.js';

describe('luceneSyntaxError (the lucene PEG grammar the real server parses `where` with)', () => {
  it.each([
    '',
    '   ',
    'foo',
    'SeverityText:info',
    'SeverityText:info AND ServiceName:"test-service-2"',
    'ServiceName:"metric-test-service" AND SeverityText:metric',
    'a AND b OR c',
    'foo AND',
    'NOT error',
    '-level:debug +service:api',
    '(a OR b) AND c',
    'service:(api OR web)',
    'duration:[100 TO 500]',
    'duration:{100 TO *]',
    'body:err*',
    'name:jon~0.8^2',
    '"exact phrase"~3^2',
    'url:https://example.com/path',
    'host:localhost:8080',
    'path:a\\:b',
    'level:error',
    // From hyperdx common-utils __tests__/queryParser.test.ts (b52a6fa8), which the real parser accepts.
    'http://a.com http://b.com',
    '-LogAttributes.error.message:"Failed to fetch"',
    'LogAttributes.example.number:[1 TO 5]',
    'Timestamp:{2024-01-01 TO 2024-06-01}',
    'Events.JSONAttributes.message:("key1 key2")',
    'NOT Events.JSONAttributes.message:*',
    'Duration:[100 TO 500}',
    'foo:(*bar*)',
    '*bar',
    'ServiceName:foo bar baz',
  ])('accepts %j', (query) => {
    expect(luceneSyntaxError(query)).toBeUndefined();
  });

  it.each([
    ['(invalid query', 'end of input'],
    ['a)', '")"'],
    ['"unterminated', 'end of input'],
    ['duration:[1 TO', 'end of input'],
    ['field:', 'end of input'],
    ['foo:bar:baz', '":"'],
    ['a ^ b', '"^"'],
  ])('refuses %j', (query, found) => {
    expect(luceneSyntaxError(query)).toBe(`Expected a Lucene term, field, group or operator but ${found} found.`);
  });
});
