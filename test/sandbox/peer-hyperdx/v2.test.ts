/** Port of hyperdx `packages/api/src/routers/external-api/__tests__/v2.int.test.ts` (b52a6fa8). */
import { describe, expect, it } from 'vitest';
import { usePeer } from './support.js';

const peer = usePeer();

describe('v2.int.test.ts > external api v2', () => {
  it('GET /api/v2', async () => {
    const { authRequest, sandbox } = peer();
    const resp = await authRequest('get', '/api/v2').expect(200);
    expect(resp.body.version).toEqual('v2');
    // The real test compares with the logged-in user's id; the sandbox's caller is its team's first member.
    const members = (await authRequest('get', '/api/v2/team/members').expect(200)).body.data;
    expect(resp.body.user._id).toEqual(members.find((m: { isCurrentUser: boolean }) => m.isCurrentUser).id);
    expect(JSON.stringify(resp.body)).not.toContain(sandbox.credentials.apiKey);
  });
});
