/** The sandbox's OTLP/HTTP receiver on a port of its own (ClickStack's collector listens on 4318). */
import type { AddressInfo } from 'node:net';
import { createOtlpServer } from './receiver.js';
import { OtlpStore } from './store.js';

export { OtlpStore, OTEL_TABLES, isOtelTable, type OtelTable } from './store.js';

/** The port ClickStack's collector takes OTLP/HTTP on; the sandbox's receiver is off unless a port is given. */
export const OTLP_HTTP_PORT = 4318;

export interface OtlpReceiver {
  /** The OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): signals are posted to `${url}/v1/traces` and so on. */
  url: string;
  port: number;
  store: OtlpStore;
  close(): Promise<void>;
}

export async function startOtlpReceiver(opts: { host: string; port: number; store?: OtlpStore }): Promise<OtlpReceiver> {
  const store = opts.store ?? new OtlpStore();
  const server = createOtlpServer(store);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    port,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
