/** A bench case in a process of its own (./isolate.ts): runs it, sends its rows to the parent, exits. */
import type { CaseRequest } from './isolate.js';
import type { BenchContext, Result } from './measure.js';

type Case = (args: never, ctx: BenchContext) => Promise<void>;

const request = JSON.parse(process.argv[2] ?? '{}') as CaseRequest;
const send = (message: { row?: Result; error?: string }) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));
try {
  const module = (await import(`./measures/${request.module}.js`)) as { cases?: Record<string, Case> };
  const run = module.cases?.[request.name];
  if (!run) throw new Error(`no case ${request.name} in bench/measures/${request.module}`);
  const pending: Promise<void>[] = [];
  const ctx: BenchContext = {
    mode: 'full',
    profile: request.profile,
    root: request.root,
    cli: `${request.root}/dist/cli/main.js`,
    record: (row) => void pending.push(send({ row })),
  };
  await run(request.args as never, ctx);
  await Promise.all(pending);
  process.exit(0);
} catch (err) {
  await send({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
}
