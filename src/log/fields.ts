/**
 * Log fields named as collectors expect them. HTTP requests carry OpenTelemetry's semantic
 * conventions (`http.request.method`, `http.response.status_code`, `url.path`, `server.address`,
 * `server.port`, `error.type`), and no line has a top-level key a log backend reserves for its
 * own use (`status`: the level in Datadog and others; `host`: the machine that logged).
 */

type Fields = Record<string, unknown>;

/** `server.address` and `server.port` of a URL's host (`api.example.com:8443`, `[::1]:8000`). */
export function serverFields(host: string): Fields {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!m) return { 'server.address': host };
  const address = (m[1] ?? host).replace(/^\[|\]$/g, '');
  return m[2] === undefined ? { 'server.address': address } : { 'server.address': address, 'server.port': Number(m[2]) };
}

/** An HTTP status as OpenTelemetry has it: `http.response.status_code` when a response came (0: none, so no field). */
export function statusField(status: number): Fields {
  return status > 0 ? { 'http.response.status_code': status } : {};
}

/**
 * Every log record's own fields on their way out (pino's `formatters.log`): a top-level `status`
 * or `host`, whoever wrote it, becomes the OpenTelemetry field it is (every status obsync logs
 * is an HTTP one, every host a server's), so no line collides with a backend's reserved keys.
 */
export function withoutReservedKeys(fields: Fields): Fields {
  if (!Object.hasOwn(fields, 'status') && !Object.hasOwn(fields, 'host')) return fields;
  const { status, host, ...rest } = fields;
  return {
    ...rest,
    ...(typeof host === 'string' ? serverFields(host) : host === undefined ? {} : { 'server.address': host }),
    ...(typeof status === 'number' ? statusField(status) : status === undefined ? {} : { 'obsync.status': status }),
  };
}
