import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable } from '../core/printable.js';
import type { ObsyncEvent } from '../events/vocabulary.js';
import type { PreparedNotification } from './payload.js';
import { slackPayload } from './slack.js';
import { literal, slackText } from './slack-text.js';

const event: ObsyncEvent = {
  seq: 7,
  time: '2026-11-26T12:00:00.000Z',
  target: 'prod',
  event: 'drift',
  address: 'Alert/checkout-p99-high',
  action: 'update',
  reason: 'drifted',
  paths: ['threshold'],
};
const drift: PreparedNotification = {
  id: 'n-1',
  kind: 'drift',
  target: 'prod',
  time: event.time,
  severity: 'warning',
  summary: 'Alert/checkout-p99-high was changed on prod and was put back: threshold',
  event,
  count: 1,
  items: [{ event, changes: ['threshold 1500 → 900'] }],
};
const ctx = { version: '0.1.0', replica: 'host/1', dropped: 0 };

const TOKEN = /<!date\^00000000\^\{_\}\|(.)>/gu;

/**
 * What Slack would still interpret in `text` once our own literal tokens are set aside: markup
 * characters, an entity other than the three, an emoji code, a URL's scheme, a leading quote.
 */
function interpreted(text: string): string[] {
  const rest = text.replace(TOKEN, '·');
  const found: string[] = [];
  for (const [m] of rest.matchAll(/[<>*_~`]|&(?!amp;|lt;|gt;)|:[\w+'-]+:|:\/\//g)) found.push(m);
  if (/^\u00ad?(&gt;|>)/.test(rest) && !rest.startsWith('\u00ad')) found.push('leading quote');
  return found;
}

/** What Slack shows of our text: tokens as their fallback, the three entities decoded, the soft hyphen before a quote dropped. */
function shown(text: string): string {
  return text
    .replace(/^\u00ad/, '')
    .replace(TOKEN, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const hostile = fc.string({
  unit: fc.constantFrom('*', '_', '~', '`', '<', '>', '&', ':', '/', '@', '!', '|', '#', '.', ' ', 'a', 'h', 't', 'p', 's', '\n', '\u202e'),
  maxLength: 40,
});
const samples = [
  '*bold* _italic_ ~strike~ `code` ```block```',
  'Dashboard/https://evil.example/login and www.evil.example',
  '<!channel> <@U123> <https://evil.example|click here> &amp;',
  ':rotating_light: :white_check_mark: 12:00:03',
  '> a quote',
];

describe('slackText: service text is inert in Slack mrkdwn, as one class', () => {
  it('leaves nothing Slack would interpret, and Slack shows exactly the text (control characters escaped)', () => {
    // Plain checks (a failure shrinks to the smallest string that breaks either).
    const inert = (s: string) => {
      const out = slackText(s);
      return interpreted(out).length === 0 && shown(out) === printable(s);
    };
    fc.assert(fc.property(fc.oneof(hostile, fc.constantFrom(...samples)), inert), { numRuns: 300 });
    // Any code point, lone surrogates included (fast-check's own 'binary' unit costs seconds to set up).
    const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c));
    fc.assert(fc.property(fc.string({ unit: anyCodePoint, maxLength: 30 }), inert), { numRuns: 200 });
  });

  it('the red team’s strings: formatting, emoji codes, URLs and mentions come out as written', () => {
    expect(slackText('*bold* _x_')).toBe(`${literal('*')}bold${literal('*')} ${literal('_')}x${literal('_')}`);
    expect(slackText('https://evil.example')).toBe(`https${literal(':')}//evil.example`);
    expect(slackText('<!here>')).toBe('&lt;!here&gt;');
    expect(slackText('> quote').startsWith('\u00ad&gt;')).toBe(true);
  });

  it('cuts between units, never inside an entity or a token', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 2, max: 60 }), (s, max) => {
        const out = slackText(s, max);
        return out.length <= max + 1 && interpreted(out.replace(/…$/, '')).length === 0;
      }),
    );
  });
});

describe('slackPayload', () => {
  it('a title and the summary, the objects with their field changes, and a context line; every mrkdwn object verbatim', () => {
    const p = slackPayload(drift, ctx);
    expect(p.text).toBe(':warning: Drift on prod: Alert/checkout-p99-high was changed on prod and was put back: threshold');
    expect(p.blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: ':warning: *Drift on prod*\nAlert/checkout-p99-high was changed on prod and was put back: threshold',
        verbatim: true,
      },
    });
    expect(p.blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '• Alert/checkout-p99-high: threshold 1500 → 900', verbatim: true },
    });
    expect(JSON.stringify(p.blocks[2])).toContain('obsync 0.1.0 · host/1');
    expect([p.unfurl_links, p.unfurl_media]).toEqual([false, false]);
  });

  it('hostile text anywhere makes no mention, link or markup: URLs stay text (verbatim), formatting characters show as written', () => {
    const name = 'Dashboard/https://evil.example *urgent* <!channel>';
    const hostileEvent = { ...event, address: name };
    const p = slackPayload(
      {
        ...drift,
        summary: `${name} was changed`,
        event: hostileEvent,
        items: [{ event: hostileEvent, changes: ['name "_x_" → "~y~"'] }],
      },
      ctx,
    );
    const texts = [p.text, ...p.blocks.flatMap((b) => (b.type === 'section' ? [b.text] : b.elements))].map((t) =>
      typeof t === 'string' ? t : t.text,
    );
    for (const t of texts) expect(interpreted(t.replace(/^:\w+: \*[^*]+\*\n/, '').replace(/^:\w+: /, ''))).toEqual([]);
    for (const b of p.blocks) for (const t of b.type === 'section' ? [b.text] : b.elements) expect(t.verbatim).toBe(true);
  });

  it('stays within Slack’s 3,000 characters however many objects changed, saying how many were left out', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ event: { ...event, address: `Alert/a-${i}` }, changes: ['x'.repeat(200)] }));
    const p = slackPayload({ ...drift, count: 100, items: many }, ctx);
    for (const b of p.blocks) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(3000);
    expect(p.blocks[1]?.type === 'section' ? p.blocks[1].text.text : '').toMatch(/… and \d+ more object\(s\) with changes/);
  });
});
