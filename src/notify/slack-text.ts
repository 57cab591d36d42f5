/**
 * Text from the service or the manifests made inert in a Slack message (issue 25; issue 50 item 6):
 * everything Slack would interpret in mrkdwn is shown as written, as one class, here.
 * - `&`, `<` and `>` as the entities Slack decodes (so no `<!channel>`, `<@U…>` or `<url|link>`);
 * - the formatting characters `*`, `_`, `~` and `` ` ``, the colon that opens an emoji code
 *   (`:rotating_light:`) and the colon of a URL's `://`, each as a date token whose format is
 *   invalid: Slack has no escape character, and shows such a token's fallback as plain text
 *   (`<!date^0^{_}|*>` shows `*`; a zero-width space would make formatting *more* likely);
 * - a leading `>` (a quote) behind a soft hyphen;
 * - control, bidi and invisible characters shown escaped (printable, the one output pass).
 * Bare URLs and domains are left to the payload: every mrkdwn object is `verbatim`, which tells
 * Slack not to turn URLs, channel names or mentions into links (./slack.ts).
 */
import { printable } from '../core/printable.js';

/** Shows `char` as plain text: a date token with an invalid format renders its fallback, unformatted. */
export const literal = (char: string): string => `<!date^00000000^{_}|${char}>`;

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
/** What Slack interprets (a formatting character, an emoji code's or a URL's colon), an entity character, or plain text. */
const PIECES = /(?<special>[*_~`]|:(?=[\w+'-]+:|\/\/))|(?<entity>[&<>])|(?<plain>[^&<>*_~`:]+|:)/gu;
const SOFT_HYPHEN = '\u00ad';

/** The text in units that are never cut: an entity, a token, one character. */
function pieces(value: string): string[] {
  const out: string[] = [];
  for (const m of printable(value).matchAll(PIECES)) {
    const { special, entity, plain } = m.groups ?? {};
    if (special !== undefined) out.push(literal(special));
    else if (entity !== undefined) out.push(ENTITY[entity] ?? '');
    else if (plain !== undefined) out.push(...Array.from(plain));
  }
  return out;
}

/**
 * `value` for a Slack mrkdwn text, at most `max` characters long (cut between units, never inside
 * an entity or a token, ending in `…`).
 */
export function slackText(value: string, max = Number.POSITIVE_INFINITY): string {
  const units = pieces(value);
  let out = units[0] === '&gt;' ? SOFT_HYPHEN : '';
  for (const unit of units) {
    if (out.length + unit.length > max - 1) return `${out}…`;
    out += unit;
  }
  return out;
}
