import { describe, expect, it } from 'vitest';
import { markInSpec, withMark, withoutMark } from './mark.js';

const mark = { tag: 'managed-by-obsync', description: 'Managed in Git by obsync.' };

describe('the managed-in-Git mark', () => {
  it('is added to a body and taken out of the object read back, which is then what was meant', () => {
    const body = { name: 'Checkout', tags: ['payments'] };
    const sent = withMark('tags', body, mark);
    expect(sent.tags).toEqual(['payments', 'managed-by-obsync']);
    expect(body.tags).toEqual(['payments']);
    expect(withoutMark('tags', { id: '1', ...sent }, mark)).toEqual({ id: '1', ...body });
    const alert = withMark('note', { note: 'Page the payments team.' }, mark);
    expect(alert.note).toBe('Page the payments team.\n\nManaged in Git by obsync.');
    expect(withoutMark('note', alert, mark)).toEqual({ note: 'Page the payments team.' });
    expect(withoutMark('note', withMark('note', {}, mark), mark)).toEqual({ note: null });
  });

  it('leaves an object without it as it is (the same object), and a body it does not fit in', () => {
    const live = { id: '1', tags: ['a'], note: 'x' };
    expect(withoutMark('tags', live, mark)).toBe(live);
    expect(withoutMark('note', live, mark)).toBe(live);
    const full = { tags: Array.from({ length: 50 }, (_, i) => `t${i}`) };
    expect(withMark('tags', full, mark)).toBe(full);
    expect(withMark('tags', { tags: [] }, { description: 'only a line' })).toEqual({ tags: [] });
  });

  it('is refused in a manifest that spells it itself', () => {
    expect(markInSpec('tags', { tags: ['managed-by-obsync'] }, mark)).toContain("spec.tags lists 'managed-by-obsync'");
    expect(markInSpec('tags', { tags: ['payments'] }, mark)).toBeUndefined();
  });
});
