/**
 * The pictures of a target's last plan, kept in memory for the status page (issue 42): a preview of
 * each dashboard it creates or updates and a chart of each alert it backtested, as SVG only (no PNG
 * is drawn). Bounded: at most MAX_PICTURES a target, drawn no further, and at most MAX_SVG_BYTES of
 * SVG a target; a picture past either bound is listed as skipped, with the bound. Each run's plan
 * replaces the last one's pictures (a plan that changes nothing has none). Never throws.
 */
import type { Plan } from '../core/plan.js';
import type { DashboardPreviewInput } from '../core/preview.js';
import { reportPictures, type ReportPictureOptions, type TitledPicture } from '../render/preview/report-pictures.js';

type Report = { plan: Plan; previews?: DashboardPreviewInput[] | undefined };
type Draw = (report: Report, opts: ReportPictureOptions) => Promise<TitledPicture[]>;

export const MAX_PICTURES = 12;
export const MAX_SVG_BYTES = 2 * 1024 * 1024;

/** A kept picture (`file`: its name under /targets/NAME/previews/), or why there is none. */
export type PlanPicture = { address: string; title: string; file: string } | { address: string; title: string; skipped: string };

export class PlanPictures {
  #list: PlanPicture[] = [];
  #svgs = new Map<string, string>();

  constructor(
    private readonly bounds = { pictures: MAX_PICTURES, bytes: MAX_SVG_BYTES },
    private readonly draw: Draw = reportPictures,
  ) {}

  /** Draws the plan's pictures and keeps them in place of the last plan's. */
  async keep(report: Report): Promise<void> {
    const drawn = await this.draw(report, { png: false, max: this.bounds.pictures });
    const list: PlanPicture[] = [];
    const svgs = new Map<string, string>();
    let bytes = 0;
    for (const { picture, title } of drawn) {
      if ('skipped' in picture) {
        list.push({ address: picture.address, title, skipped: picture.skipped });
        continue;
      }
      const size = Buffer.byteLength(picture.svg);
      if (bytes + size > this.bounds.bytes) {
        list.push({ address: picture.address, title, skipped: `over the ${this.bounds.bytes} bytes of pictures kept a target` });
        continue;
      }
      bytes += size;
      const file = `${picture.base}.svg`;
      svgs.set(file, picture.svg);
      list.push({ address: picture.address, title, file });
    }
    this.#list = list;
    this.#svgs = svgs;
  }

  list(): readonly PlanPicture[] {
    return this.#list;
  }

  svg(file: string): string | undefined {
    return this.#svgs.get(file);
  }
}
