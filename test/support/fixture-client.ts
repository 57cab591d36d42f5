/** A test file's side of the shared fixtures (./fixtures.ts): absent when the run has no fixture server. */
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The fixture server's URL (test/support/global-setup.ts). */
    fixtures: string;
  }
}

export function fixturesAvailable(): boolean {
  return typeof inject('fixtures') === 'string';
}

/** Asks the fixture server for this worker's `name` fixture to do `action`. */
export async function callFixture<T>(name: string, action: string, body: Record<string, unknown> = {}): Promise<T> {
  const worker = process.env.VITEST_POOL_ID ?? '0';
  const res = await fetch(`${inject('fixtures')}/${name}/${action}?worker=${encodeURIComponent(worker)}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fixture ${name} ${action}: ${text}`);
  return JSON.parse(text) as T;
}
