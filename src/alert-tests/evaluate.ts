/**
 * One AlertTest evaluated: its series through the checker the backtests use (evaluateWindows),
 * against the Alert manifest it names. Pure and offline: no target, no credential, no request.
 * A series given per group is a groupBy alert's (each group its own history); a single series
 * is an alert without groupBy.
 */
import { evaluateWindows } from '../kinds/alert/backtest-counts.js';
import { INTERVAL_MS, type AlertCondition, type SeriesPoint } from '../kinds/alert/checker.js';
import { EXPECTED_KEYS, parseSeries, type AlertTestDocument, type AlertTestExpect } from './schema.js';

/** What a test reads of the alert: its condition, from the Alert manifest's spec. */
export interface AlertUnderTest {
  thresholdType: string;
  threshold: number;
  thresholdMax?: number | undefined;
  interval: string;
  numConsecutiveWindows?: number | undefined;
}

export type ExpectedKey = (typeof EXPECTED_KEYS)[number];

export interface AlertTestResult {
  name: string;
  file: string;
  line: number;
  alert: string;
  passed: boolean;
  /** Why the test could not be evaluated (the alert is not declared, a bad series). */
  error?: string;
  expected: AlertTestExpect;
  /** The counts the checker gives, for the keys expected. */
  actual?: Partial<Record<ExpectedKey, number>>;
}

export function evaluateAlertTest(test: AlertTestDocument, alert: AlertUnderTest | undefined): AlertTestResult {
  const base = { name: test.name, file: test.file, line: test.line, alert: test.spec.alert, expected: test.spec.expect };
  const failed = (error: string): AlertTestResult => ({ ...base, passed: false, error });
  if (!alert) return failed(`no Alert manifest named '${test.spec.alert}' among the manifests read`);
  if (test.spec.interval !== undefined && test.spec.interval !== alert.interval)
    return failed(`the test's interval is ${test.spec.interval}, the alert's ${alert.interval}: a window is one interval of the alert`);
  const stepMs = INTERVAL_MS[alert.interval];
  if (stepMs === undefined) return failed(`the alert's interval ${alert.interval} is not one the checker knows`);
  const grouped = typeof test.spec.series !== 'string';
  const given = typeof test.spec.series === 'string' ? { '': test.spec.series } : test.spec.series;
  const points: SeriesPoint[] = [];
  let count = 0;
  for (const [group, text] of Object.entries(given)) {
    const parsed = parseSeries(text);
    if ('error' in parsed) return failed(`series${grouped ? `.${group}` : ''}: ${parsed.error}`);
    parsed.values.forEach((value, i) => {
      if (value !== null) points.push({ bucket: i * stepMs, group, value });
    });
    count = Math.max(count, parsed.values.length);
  }
  const condition: AlertCondition = {
    thresholdType: alert.thresholdType,
    threshold: alert.threshold,
    thresholdMax: alert.thresholdMax ?? null,
    interval: alert.interval,
    numConsecutiveWindows: alert.numConsecutiveWindows ?? null,
  };
  const counts = evaluateWindows(condition, { start: 0, count, stepMs }, points, grouped);
  const asked = EXPECTED_KEYS.filter((key) => test.spec.expect[key] !== undefined);
  const actual: Partial<Record<ExpectedKey, number>> = Object.fromEntries(asked.map((key) => [key, counts[key]]));
  const passed = asked.every((key) => counts[key] === test.spec.expect[key]);
  return { ...base, passed, actual };
}
