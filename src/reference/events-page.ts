/** docs/reference/events.md: every event of the vocabulary with its fields, from its JSON Schema (docs/schema/event.schema.json). */
import { code, generatedHeader, text } from './markdown.js';

interface Property {
  description?: string;
  const?: unknown;
  type?: string;
  enum?: unknown[];
  $ref?: string;
}
interface Variant {
  description?: string;
  properties: Record<string, Property>;
  required?: string[];
}

const ENVELOPE = new Set(['seq', 'time', 'target', 'event']);

export function eventsReferencePage(schema: { definitions: Record<string, unknown> }): string {
  const event = schema.definitions.Event as { oneOf: Variant[] };
  const lines = [
    generatedHeader('the event vocabulary (src/events/vocabulary.ts)'),
    '',
    '# Events',
    '',
    'What obsync did or found, per target: a log line with an `event` field, a count in',
    '`obsync_events_total{target,event}`, and (daemon) an entry at `/api/events` and `/api/events/stream`.',
    'Every event also has `seq` (its position in this process), `time` (UTC) and `target`.',
  ];
  for (const variant of event.oneOf) {
    const name = String(variant.properties.event?.const);
    lines.push('', `## ${name}`, '', text(variant.description ?? ''));
    const fields = Object.entries(variant.properties).filter(([field]) => !ENVELOPE.has(field));
    if (fields.length > 0) lines.push('');
    for (const [field, p] of fields) {
      const optional = variant.required?.includes(field) ? '' : ' (optional)';
      lines.push(`- ${code(field)}${optional}${typeOf(p)} — ${text(p.description ?? '')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function typeOf(p: Property): string {
  if (p.enum) return `: ${p.enum.map((v) => code(String(v))).join(' or ')}`;
  if (p.$ref) return `: ${p.$ref.replace('#/definitions/', '')}`;
  return p.type ? `: ${p.type}` : '';
}
