/** vitest globalSetup of the integration tests: the shared fixtures' server (./fixtures.ts), stopped when the run ends. */
import type { TestProject } from 'vitest/node';
import { startFixtureServer } from './fixtures.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startFixtureServer();
  project.provide('fixtures', server.url);
  return () => server.close();
}
