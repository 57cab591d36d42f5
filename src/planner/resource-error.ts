import type { Diagnostic } from '../core/diagnostics.js';
import type { DesiredResource } from '../core/resource.js';

/** An error of one object, at the field a kind's message names (`… (at spec.channel.webhook)`) when its position is known. */
export function resourceError(res: DesiredResource, message: string, code: string): Diagnostic {
  const at = / \(at (spec[^\s)]*)\)$/.exec(message);
  const path = at?.[1];
  const field = path === undefined ? undefined : res.source.fields?.[path];
  return {
    severity: 'error',
    code,
    message: `${res.address}: ${at && field ? message.slice(0, at.index) : message}`,
    address: res.address,
    file: res.source.file,
    line: field?.line ?? res.source.line,
    col: field?.col ?? res.source.col,
    ...(at && field ? { path } : {}),
  };
}
