/**
 * The span names and attribute keys obsync exports (docs/telemetry.md, deploy/monitoring/). Part 2
 * of issue 45 wires them: a span per command or daemon run, children for reading the live state,
 * planning, each apply step, each HTTP request, backtests and previews. HTTP spans follow the
 * OpenTelemetry HTTP client conventions: `{method} {url.template}`, never a query string, header or body.
 */
export const SPAN = {
  /** A CLI command (plan, apply, validate…): the root of a one-shot run. */
  command: 'obsync.command',
  /** One reconcile run of one target (a command's child, or the root of a daemon run). */
  run: 'obsync.run',
  readLive: 'obsync.read_live',
  plan: 'obsync.plan',
  apply: 'obsync.apply',
  applyStep: 'obsync.apply.step',
  backtest: 'obsync.backtest',
  preview: 'obsync.preview',
} as const;

export const ATTR = {
  command: 'obsync.command',
  target: 'obsync.target',
  variant: 'obsync.variant',
  /** plan | apply */
  mode: 'obsync.mode',
  /** start-up | schedule | watch | manual */
  trigger: 'obsync.trigger',
  /** success | failure | invalid_manifests (the values of obsync_reconcile_total's result label) */
  result: 'obsync.result',
  changes: 'obsync.changes',
  /** Objects the plan leaves as they are: their steps send nothing and have no span of their own. */
  unchanged: 'obsync.unchanged',
  address: 'obsync.address',
  action: 'obsync.action',
  /** OpenTelemetry HTTP semantic conventions. */
  httpMethod: 'http.request.method',
  urlTemplate: 'url.template',
  httpStatus: 'http.response.status_code',
  serverAddress: 'server.address',
  /** A failed request's status code (`404`), or the error's code (CONNECTION_REFUSED…) when there was no answer. */
  errorType: 'error.type',
  /** Attempts after the first (5xx, lost connection, 429), as OpenTelemetry's HTTP conventions name it. */
  resendCount: 'http.request.resend_count',
  rateLimitWaitMs: 'obsync.rate_limit.wait_ms',
} as const;
