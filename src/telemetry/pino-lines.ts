/**
 * pino's JSON lines as OTLP log records. pino writes a line synchronously inside the logging call,
 * so the span active there is the one the record is correlated with. The line's `msg` is the body,
 * its level the severity, its `time` the timestamp; every other field is an attribute (objects as
 * JSON text). Only used when telemetry is on (loaded by ./sdk.ts).
 */
import { context } from '@opentelemetry/api';
import { SeverityNumber, type Logger } from '@opentelemetry/api-logs';
import { setOwn } from '../core/json.js';
import type { LineDestination } from './api.js';

const SEVERITY: Record<number, [SeverityNumber, string]> = {
  10: [SeverityNumber.TRACE, 'TRACE'],
  20: [SeverityNumber.DEBUG, 'DEBUG'],
  30: [SeverityNumber.INFO, 'INFO'],
  40: [SeverityNumber.WARN, 'WARN'],
  50: [SeverityNumber.ERROR, 'ERROR'],
  60: [SeverityNumber.FATAL, 'FATAL'],
};

/** Fields pino writes that the record carries elsewhere (or that correlation adds again). */
const CARRIED = new Set(['msg', 'level', 'time', 'trace_id', 'span_id', 'trace_flags']);

function attributeValue(value: unknown): string | number | boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value) ?? String(value);
}

export function lineDestination(logger: Logger): LineDestination {
  return {
    write(line: string): void {
      let fields: unknown;
      try {
        fields = JSON.parse(line);
      } catch {
        fields = { msg: line.trimEnd() };
      }
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) fields = { msg: String(line).trimEnd() };
      const record = fields as Record<string, unknown>;
      const severity = typeof record.level === 'number' ? SEVERITY[record.level] : undefined;
      const attributes: Record<string, string | number | boolean> = {};
      for (const [key, value] of Object.entries(record))
        if (!CARRIED.has(key) && value !== undefined) setOwn(attributes, key, attributeValue(value));
      logger.emit({
        body: typeof record.msg === 'string' ? record.msg : '',
        ...(severity ? { severityNumber: severity[0], severityText: severity[1] } : {}),
        ...(typeof record.time === 'number' ? { timestamp: record.time } : {}),
        attributes,
        context: context.active(),
      });
    },
  };
}
