/**
 * The refactor of issue 27 as manifests: a dashboard with two tiles and an alert on each, then in
 * one commit the dashboard renamed, the alert on the first tile renamed, and that tile's key (and
 * title) renamed; the other alert keeps its name and follows the dashboard. `declared` says the
 * renames in the manifests (previousNames, previousKeys); without it the manifests only carry the
 * new names (for `obsync state mv`).
 */

interface TileDoc {
  key: string;
  name: string;
  previousKeys?: string[];
}

export function dashboardDoc(name: string, display: string, tiles: readonly TileDoc[], previousNames?: readonly string[]): string {
  const meta = previousNames ? `{name: ${name}, previousNames: [${previousNames.join(', ')}]}` : `{name: ${name}}`;
  const body = tiles
    .map(
      (t, i) =>
        `    - {key: ${t.key}, ${t.previousKeys ? `previousKeys: [${t.previousKeys.join(', ')}], ` : ''}name: ${JSON.stringify(t.name)}, ` +
        `x: ${(i % 2) * 12}, y: ${Math.floor(i / 2) * 4}, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: ` +
        `avg, valueExpression: Duration}]}}`,
    )
    .join('\n');
  return `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: ${meta}\nspec:\n  name: ${display}\n  tiles:\n${body}\n`;
}

export function alertDoc(name: string, dashboard: string, tile: string, display: string, previousNames?: readonly string[]): string {
  const meta = previousNames ? `{name: ${name}, previousNames: [${previousNames.join(', ')}]}` : `{name: ${name}}`;
  return (
    `apiVersion: obsync/v1\nkind: Alert\nmetadata: ${meta}\nspec: {dashboard: ${dashboard}, tile: ${tile}, threshold: 500, ` +
    `thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ops-slack}, name: ${display}}\n`
  );
}

export const DISPLAY = 'Checkout service';

export function beforeRefactor(): Record<string, string> {
  return {
    'checkout.yaml': dashboardDoc('checkout', DISPLAY, [
      { key: 'p99', name: 'p99 latency' },
      { key: 'errors', name: 'Errors' },
    ]),
    'alerts.yaml': [
      alertDoc('checkout-p99', 'checkout', 'p99', 'Checkout p99 high'),
      alertDoc('checkout-errors', 'checkout', 'errors', 'Checkout errors high'),
    ].join('---\n'),
  };
}

/** After the refactor; `declared`: with previousNames and previousKeys. Files are moved and renamed too (paths never matter). */
export function afterRefactor(declared: boolean): Record<string, string> {
  return {
    'services/checkout-service.yaml': dashboardDoc(
      'checkout-service',
      DISPLAY,
      [
        { key: 'latency', name: 'Latency (p99)', ...(declared ? { previousKeys: ['p99'] } : {}) },
        { key: 'errors', name: 'Errors' },
      ],
      declared ? ['checkout'] : undefined,
    ),
    'alerting/latency.yaml': alertDoc(
      'checkout-latency-high',
      'checkout-service',
      'latency',
      'Checkout p99 high',
      declared ? ['checkout-p99'] : undefined,
    ),
    'alerting/errors.yaml': alertDoc('checkout-errors', 'checkout-service', 'errors', 'Checkout errors high'),
  };
}

/** The `obsync state mv` commands that record the same refactor. */
export const STATE_MOVES: readonly (readonly [string, string])[] = [
  ['Dashboard/checkout', 'Dashboard/checkout-service'],
  ['Dashboard/checkout-service/tiles/p99', 'Dashboard/checkout-service/tiles/latency'],
  ['Alert/checkout-p99', 'Alert/checkout-latency-high'],
];
