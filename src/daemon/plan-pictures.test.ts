import { describe, expect, it } from 'vitest';
import type { Plan } from '../core/plan.js';
import type { DashboardPreviewInput } from '../core/preview.js';
import type { ReportPictureOptions, TitledPicture } from '../render/preview/report-pictures.js';
import { MAX_PICTURES, PlanPictures } from './plan-pictures.js';

const plan = { steps: [] } as unknown as Plan;
const dashboard = (name: string): DashboardPreviewInput => ({ address: `Dashboard/${name}`, name: `${name} <b>`, after: { name } });

/** A drawer that draws 100-byte SVGs (the real one is tested in src/render/preview and the daemon's e2e), recording what it was asked. */
function fakeDraw(asked: ReportPictureOptions[]) {
  return (report: { previews?: DashboardPreviewInput[] | undefined }, opts: ReportPictureOptions): Promise<TitledPicture[]> => {
    asked.push(opts);
    const inputs = report.previews ?? [];
    return Promise.resolve(
      inputs.map((d, i) => ({
        title: d.name,
        picture:
          i < (opts.max ?? Infinity)
            ? { address: d.address, base: `dashboard-${d.after.name as string}`, svg: `<svg>${'x'.repeat(89)}</svg>`, png: undefined }
            : { address: d.address, skipped: `over the ${opts.max ?? 0} pictures kept of a plan` },
      })),
    );
  };
}

describe("the daemon's pictures of a target's last plan", () => {
  it('asks for SVGs only, at most the count bound; keeps them within the byte bound (the rest skipped, with the bound)', async () => {
    const asked: ReportPictureOptions[] = [];
    const pictures = new PlanPictures({ pictures: 3, bytes: 250 }, fakeDraw(asked));
    await pictures.keep({ plan, previews: ['a', 'b', 'c', 'd'].map(dashboard) });
    expect(asked).toEqual([{ png: false, max: 3 }]);
    expect(pictures.list()).toEqual([
      { address: 'Dashboard/a', title: 'a <b>', file: 'dashboard-a.svg' },
      { address: 'Dashboard/b', title: 'b <b>', file: 'dashboard-b.svg' },
      { address: 'Dashboard/c', title: 'c <b>', skipped: 'over the 250 bytes of pictures kept a target' },
      { address: 'Dashboard/d', title: 'd <b>', skipped: 'over the 3 pictures kept of a plan' },
    ]);
    expect(pictures.svg('dashboard-a.svg')).toHaveLength(100);
    expect(pictures.svg('dashboard-c.svg')).toBeUndefined();
  });

  it("replaces the last plan's pictures with the next plan's: a plan with none empties them", async () => {
    const pictures = new PlanPictures(undefined, fakeDraw([]));
    await pictures.keep({ plan, previews: [dashboard('a')] });
    expect(pictures.svg('dashboard-a.svg')).toBeDefined();
    await pictures.keep({ plan, previews: [] });
    expect(pictures.list()).toEqual([]);
    expect(pictures.svg('dashboard-a.svg')).toBeUndefined();
    expect(MAX_PICTURES).toBe(12);
  });
});
