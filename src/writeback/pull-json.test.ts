import { describe, expect, it } from 'vitest';
import { registerSecret } from '../core/scrub.js';
import { pullReport, pullReportSchema } from './pull-json.js';
import { pullAnnotations } from './report.js';
import type { PullResult } from './result.js';

const SECRET = 'pull-json-canary-7f3a9c2e41';
const at = (file: string) => file.replace('/repo/', '');

/** A pull whose live values carry a secret obsync knows in fields that are not marked sensitive (a tile's query, a name). */
function result(): PullResult {
  return {
    files: [
      {
        file: '/repo/manifests/d.yaml',
        before: 'a',
        after: 'b',
        edits: [
          {
            address: 'Dashboard/d',
            file: '/repo/manifests/d.yaml',
            line: 7,
            path: 'spec.name',
            op: 'set',
            before: 'D',
            after: `D ${SECRET}`,
          },
        ],
        removed: [],
        created: [],
        conflicted: false,
      },
      { file: '/repo/manifests/same.yaml', before: 'x', after: 'x', edits: [], removed: [], created: [], conflicted: false },
    ],
    conflicts: [
      {
        address: 'Alert/a',
        file: '/repo/manifests/a.yaml',
        line: 3,
        path: 'spec.threshold',
        reason: 'interpolated',
        message: 'change the variable',
        manifest: 1,
        written: '${var:t}',
        live: { note: SECRET },
        targets: ['t'],
      },
    ],
    deletedOnService: [],
    errors: [{ target: 't', severity: 'error', code: 'unresolved-reference', message: `no webhook ${SECRET}`, file: '/repo/m.yaml' }],
  };
}

describe('pull --output json and github', () => {
  it('reports only files that change or conflict, relative paths, in the published shape, with no known secret', () => {
    registerSecret(SECRET);
    const report = pullReport(result(), { check: true, at });
    expect(pullReportSchema.parse(report)).toEqual(report);
    expect(report.files.map((f) => [f.file, f.status])).toEqual([['manifests/d.yaml', 'changed']]);
    expect(report.summary).toEqual({ files: 1, edits: 1, conflicts: 1, errors: 1 });
    expect(report.conflicts[0]?.file).toBe('manifests/a.yaml');
    expect(report.errors[0]).toMatchObject({ file: 'm.yaml', code: 'unresolved-reference' });
    expect(JSON.stringify(report)).not.toContain(SECRET);
    const annotations = pullAnnotations(result(), at);
    expect(annotations.map((a) => [a.severity, a.file, a.line])).toEqual([
      ['notice', 'manifests/d.yaml', 7],
      ['error', 'manifests/a.yaml', 3],
    ]);
    expect(JSON.stringify(annotations)).not.toContain(SECRET);
  });
});
