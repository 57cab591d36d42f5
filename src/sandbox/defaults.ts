/**
 * The sandbox's documented defaults. They are not secrets: the sandbox only ever listens on
 * loopback for tests, demos and the embedded target. `obsync sandbox` prints them at start-up.
 */
export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  /** Self-hosted variant: `Authorization: Bearer sandbox-api-key`. */
  apiKey: 'sandbox-api-key',
  /** Hosted variant: HTTP Basic `keyId:keySecret`. */
  keyId: 'sandbox-key-id',
  keySecret: '4b1dsandboxsecret0000000000000000000000000',
  organizationId: 'a0000000-0000-4000-8000-000000000001',
  serviceId: 'b0000000-0000-4000-8000-000000000001',
} as const;
