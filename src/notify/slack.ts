/**
 * What a `slack` sink receives (issue 25): a Slack message, `text` (what notifications show) and
 * `blocks` — a section with the title and the one-line summary, a section listing the objects
 * whose fields changed with those changes (`Alert/x: threshold 1500 → 900`) when there are any,
 * and a context line with the version, replica and time. Every text from the service or the
 * manifests goes through `slackText` (./slack-text.ts), and every mrkdwn object is `verbatim`
 * (no URL, channel name or mention is turned into a link); no link is unfurled.
 */
import type { PayloadContext, PreparedNotification } from './payload.js';
import { slackText } from './slack-text.js';

const TITLE: Record<PreparedNotification['kind'], string> = {
  drift: 'Drift',
  healed: 'Healed',
  failed: 'Target failing',
  recovered: 'Target recovered',
  adopted: 'Object adopted',
  refused: 'Refused',
  'non-convergent': 'Not converging',
  leader: 'Leadership',
  proposal: 'Proposal to Git',
  'ignore-suggested': 'Ignore rule suggested',
};
const ICON: Record<PreparedNotification['severity'], string> = {
  info: ':white_check_mark:',
  warning: ':warning:',
  error: ':rotating_light:',
};
/** Slack's limit for a section's text is 3,000 characters (and 40,000 for `text`). */
const MAX_TEXT = 2_900;
/** An object's line at most (its changes are cut at the end). */
const MAX_LINE = 600;

interface Mrkdwn {
  type: 'mrkdwn';
  text: string;
  verbatim: true;
}

export interface SlackPayload {
  text: string;
  blocks: ({ type: 'section'; text: Mrkdwn } | { type: 'context'; elements: Mrkdwn[] })[];
  unfurl_links: false;
  unfurl_media: false;
}

const mrkdwn = (text: string): Mrkdwn => ({ type: 'mrkdwn', text, verbatim: true });

export function slackPayload(n: PreparedNotification, ctx: PayloadContext): SlackPayload {
  const title = slackText(`${TITLE[n.kind]} on ${n.target}`);
  const summary = slackText(n.summary, MAX_TEXT - title.length - 40);
  const dropped = ctx.dropped > 0 ? ` · ${ctx.dropped} earlier notification(s) left out by the rate limit` : '';
  const changed = objectLines(n);
  return {
    text: `${ICON[n.severity]} ${title}: ${summary}`,
    blocks: [
      { type: 'section', text: mrkdwn(`${ICON[n.severity]} *${title}*\n${summary}`) },
      ...(changed ? [{ type: 'section' as const, text: mrkdwn(changed) }] : []),
      {
        type: 'context',
        elements: [mrkdwn(`obsync ${slackText(ctx.version)} · ${slackText(ctx.replica)} · ${slackText(n.time)}${dropped}`)],
      },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/** `• Alert/x: threshold 1500 → 900; interval 5m → 1m` per object with changes, within Slack's limit. */
function objectLines(n: PreparedNotification): string {
  const withChanges = n.items.filter((o) => o.changes.length > 0);
  const lines: string[] = [];
  let length = 0;
  for (const [i, o] of withChanges.entries()) {
    const address = 'address' in o.event && typeof o.event.address === 'string' ? o.event.address : '';
    const line = `• ${slackText(`${address}: ${o.changes.join('; ')}`, MAX_LINE)}`;
    const rest = withChanges.length - i;
    if (length + line.length + 1 > MAX_TEXT - 60) {
      lines.push(`… and ${rest} more object(s) with changes (the status page shows them all)`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}
