import { describe, expect, it } from 'vitest';
import { demoDomain, failure } from './test-helpers.js';

describe('request validation order (hyperdx utils/enhancedErrors.ts at b52a6fa8)', () => {
  it('reports a bad body and a malformed path id together, body first, on every PUT', () => {
    const d = demoDomain();
    const both = (result: Parameters<typeof failure>[0]) => {
      const f = failure(result);
      expect(f.status).toBe(400);
      expect(f.message).toMatch(/^Body validation failed: .+; Params validation failed: id: Invalid ObjectId$/);
    };
    both(d.updateAlert('not-an-id', {}));
    both(d.updateWebhook('not-an-id', {}));
    both(d.updateSavedSearch('not-an-id', {}));
    both(d.updateDashboard('not-an-id', {}, 'self-hosted'));
    both(d.updateSource('not-an-id', {}));
    both(d.updateConnection('not-an-id', {}));
  });
});
