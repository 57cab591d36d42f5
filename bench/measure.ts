/** Measuring helpers of the bench: CPU of an async operation, peak RSS while it runs, the table. */
export type Result = Record<string, unknown> & { measure: string };

/** CPU time of the whole process while `f` runs (the bench does nothing else meanwhile). */
export async function cpuMs<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = process.cpuUsage();
  const value = await f();
  const d = process.cpuUsage(t0);
  return { ms: (d.user + d.system) / 1000, value };
}

/** Samples RSS every 10 ms until stopped; answers the peak in MiB. */
export function peakRss(): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576);
    },
  };
}

const COLUMNS: Record<string, string[]> = {
  plan: ['variant', 'n', 'requests', 'planCpuMs', 'parseCpuMs', 'planOverParse', 'peakRssMb'],
  apply: [
    'variant',
    'label',
    'n',
    'k',
    'limit',
    'requests',
    'planMs',
    'applyMs',
    'applyOverWriteFloor',
    'totalOverWindowFloor',
    'throttled429',
    'peakRssMb',
  ],
  'plan-profile': ['variant', 'n', 'top'],
  'memory-over-passes': ['n', 'runs', 'heapBeforeMb', 'heapAfterMb', 'afterOverBefore'],
  'daemon-latency': ['n', 'saves', 'debounceMs', 'medianMs', 'maxMs', 'maxOverBudget'],
  'daemon-memory': ['n', 'runs', 'heapAfterGcStartMb', 'heapCheckpointsMb', 'heapEndOverStart', 'rssStartMb', 'rssEndMb'],
  multitarget: [
    'targets',
    'objectsPerTarget',
    'rounds',
    'limit',
    'requestsPerTarget',
    'wallS',
    'floorS',
    'wallOverFloor',
    'roundMedianMs',
    'throttled429',
    'failedRuns',
    'heapAfterGcStartMb',
    'heapCheckpointsMb',
    'heapEndOverStart',
  ],
  backtest: [
    'label',
    'k',
    'limit',
    'budget',
    'changedAlerts',
    'evaluated',
    'seriesRequests',
    'deduplicated',
    'requestsPerAlert',
    'planMs',
    'planWithBacktestMs',
    'backtestMsPerAlert',
    'throttled429',
  ],
  startup: [
    'env',
    'samples',
    'nodeMs',
    'helpMs',
    'validateMs',
    'helpOverNode',
    'validateOverNode',
    'fastestHelpOverNode',
    'fastestValidateOverNode',
  ],
};

export function printTable(machine: Record<string, unknown>, results: readonly Result[]): void {
  console.log(`machine: ${JSON.stringify(machine)}`);
  for (const [measure, columns] of Object.entries(COLUMNS)) {
    const rows = results.filter((r) => r.measure === measure);
    if (rows.length === 0) continue;
    console.log(`\n${measure}`);
    console.log(`| ${columns.join(' | ')} |`);
    console.log(`|${columns.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${columns.map((c) => format(row[c])).join(' | ')} |`);
  }
}

function format(value: unknown): string {
  if (value === undefined || value === null) return '–';
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
