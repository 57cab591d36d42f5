/**
 * The pictures of a target's last plan on the status pages (issue 42): each an `<img>` of its SVG on
 * this daemon, linked to it, with its object's address and display name as text (escaped like every
 * text of the pages); a picture that could not be kept says why. The SVG route serves each with a
 * policy that runs nothing (src/daemon/status-replies.ts).
 */
import type { TargetStatus } from '../events/status-model.js';
import { text } from './html.js';

type Previews = NonNullable<TargetStatus['previews']>;

/** The figures, full width (a target's page) or as thumbnails (the index). */
export function previewFigures(previews: Previews, size: 'full' | 'thumbnail'): string {
  const figures = previews.map((p) => {
    const caption = `<figcaption><code>${text(p.address)}</code> ${text(p.title)}</figcaption>`;
    if ('skipped' in p) return `<figure class="skipped">${caption}<p class="muted">${text(`no picture: ${p.skipped}`)}</p></figure>`;
    const alt = text(`${p.address}: ${p.title}`);
    return `<figure><a href="${text(p.url)}"><img src="${text(p.url)}" alt="${alt}" loading="lazy"></a>${caption}</figure>`;
  });
  return `<div class="previews ${size}">${figures.join('')}</div>`;
}

/** A target page's section of them: what the last plan would change, as pictures. */
export function previewSection(previews: Previews | undefined): string {
  if (!previews || previews.length === 0) return '';
  return (
    `<section aria-labelledby="previews"><h2 id="previews">Previews of the last plan</h2>\n` +
    `<p>The dashboards it creates or updates (before and after) and the alerts it backtested.</p>\n` +
    `${previewFigures(previews, 'full')}</section>`
  );
}
