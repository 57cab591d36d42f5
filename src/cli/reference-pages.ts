/**
 * The reference pages generated from the code besides the manifest fields (src/manifests/schema-docs.ts):
 * commands, metrics and events. `npm run docs` writes them into docs/reference/; a test regenerates
 * them and fails when a checked-in page is stale.
 */
import { PassThrough } from 'node:stream';
import { DaemonMetrics } from '../daemon/metrics.js';
import { cliReferencePage } from '../reference/cli-page.js';
import { eventsReferencePage } from '../reference/events-page.js';
import { metricsReferencePage } from '../reference/metrics-page.js';
import type { CliIO } from './io.js';
import { outputJsonSchema } from './output-schemas.js';
import { buildFullProgram } from './program.js';

export async function codeReferencePages(): Promise<Map<string, string>> {
  const sink = new PassThrough();
  const io: CliIO = { stdout: sink, stderr: sink, stdin: new PassThrough(), terminal: sink, env: {}, cwd: '/' };
  const program = await buildFullProgram(io);
  const events = outputJsonSchema('event.schema.json') as { definitions: Record<string, unknown> };
  return new Map([
    ['cli.md', cliReferencePage(program)],
    ['metrics.md', await metricsReferencePage(new DaemonMetrics('reference').registry)],
    ['events.md', eventsReferencePage(events)],
  ]);
}
