/**
 * `kind: AlertTest` (issue 47): an alert's expected behaviour over a series written by hand,
 * evaluated by `obsync test` with the checker the backtests use, offline. Never an object on the
 * service: the manifest loader reads these documents beside the resources (like Policy).
 *
 * ```yaml
 * apiVersion: obsync/v1
 * kind: AlertTest
 * metadata: {name: errors-high-pages-on-a-burst}
 * spec:
 *   alert: errors-high          # metadata.name of an Alert manifest
 *   interval: 5m                # optional: the alert's own; a different one is an error
 *   series: "0 0 12 15 3 0"     # one value per window, oldest first; or {GROUP: "…"} per group
 *   expect: {notifications: 2, episodes: 1, firing: 2}
 * ```
 */
import * as z from 'zod';
import { API_VERSION, metadataSchema } from '../kinds/envelope.js';
import { ALERT_INTERVALS } from '../kinds/alert/schema.js';

export const ALERT_TEST_KIND = 'AlertTest';
/** The windows one series may hold (a week of 5-minute windows is 2016). */
export const MAX_TEST_WINDOWS = 10_000;

const count = z.number().int().min(0);
const seriesText = z
  .string()
  .describe(
    'One value per window, oldest first, separated by spaces: a number, `_` for a window without a row, `VALUExN` for N windows of ' +
      'VALUE (0x12).',
  );

export const expectSchema = z
  .strictObject({
    notifications: count.optional().describe('ALERT notifications sent (one per group per firing window).'),
    resolutions: count.optional().describe('Resolution notifications sent.'),
    episodes: count.optional().describe('Runs of consecutive firing windows.'),
    firing: count.optional().describe('Windows in which the alert is in ALERT (any group).'),
  })
  .refine((e) => Object.keys(e).length > 0, { error: 'expect names at least one of notifications, resolutions, episodes, firing' });

export type AlertTestExpect = z.output<typeof expectSchema>;
export const EXPECTED_KEYS = ['notifications', 'resolutions', 'episodes', 'firing'] as const;

export const alertTestSpecSchema = z.strictObject({
  alert: z.string().min(1).describe('The metadata.name of the Alert manifest under test.'),
  interval: z.enum(ALERT_INTERVALS).optional().describe("One window's length; the alert's own interval (default)."),
  series: z
    .union([seriesText, z.record(z.string(), seriesText).refine((r) => Object.keys(r).length > 0, { error: 'series names no group' })])
    .describe('The values of the alert query per window; an object gives one series per group (a groupBy alert).'),
  expect: expectSchema.describe('What the checker must give over the series (at least one count).'),
});

export type AlertTestSpec = z.output<typeof alertTestSpecSchema>;

export const alertTestDocumentSchema = z
  .strictObject({
    apiVersion: z.literal(API_VERSION, { error: `apiVersion must be '${API_VERSION}'` }).describe(`Always ${API_VERSION}.`),
    kind: z.literal(ALERT_TEST_KIND).describe('An alert test, run by obsync test; never an object on the service.'),
    metadata: metadataSchema,
    spec: alertTestSpecSchema.describe('The alert, the series and what is expected.'),
  })
  .meta({
    id: 'AlertTestManifest',
    description: 'An alert test: a series per window and what the alert must do over it (obsync test, docs/alert-tests.md).',
  });

/** One AlertTest as read, with where it is written. */
export interface AlertTestDocument {
  name: string;
  spec: AlertTestSpec;
  file: string;
  line: number;
}

/** `"1 _ 3x2"` → [1, null, 3, 3]; null: a window without a row. An error names the bad word. */
export function parseSeries(text: string): { values: (number | null)[] } | { error: string } {
  const values: (number | null)[] = [];
  for (const word of text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')) {
    const repeat = /^(.+)x(\d+)$/.exec(word);
    const single = repeat?.[1] ?? word;
    const times = repeat ? Number(repeat[2]) : 1;
    const value = single === '_' ? null : Number(single);
    if (value !== null && !Number.isFinite(value)) return { error: `"${word}" is not a value: write a number, _ (no row) or VALUExN` };
    if (values.length + times > MAX_TEST_WINDOWS) return { error: `more than ${MAX_TEST_WINDOWS} windows` };
    for (let i = 0; i < times; i++) values.push(value);
  }
  if (values.length === 0) return { error: 'the series has no window' };
  return { values };
}
