/** Port of hyperdx `packages/api/src/routers/external-api/__tests__/team.int.test.ts` (b52a6fa8). */
import { describe, expect, it } from 'vitest';
import { usePeer } from './support.js';

const TEAM_BASE_URL = '/api/v2/team';
const peer = usePeer();

async function me() {
  const members = (await peer().authRequest('get', `${TEAM_BASE_URL}/members`).expect(200)).body.data as {
    email: string;
    isCurrentUser: boolean;
  }[];
  const user = members.find((m) => m.isCurrentUser);
  if (!user) throw new Error('no current user');
  return user;
}

describe('team.int.test.ts > External API v2 Team', () => {
  describe('GET /api/v2/team', () => {
    it('returns the team id and name', async () => {
      const response = await peer().authRequest('get', TEAM_BASE_URL).expect(200);
      // The real test compares with the fixture team's id; the sandbox's team id is the alerts' and saved searches' teamId.
      const teamId = (peer().sandbox.selfHostedState().state as { teamId: string }).teamId;
      expect(response.body.data.id).toBe(teamId);
      expect(response.body.data).toHaveProperty('name');
    });

    it('requires authentication', async () => {
      await peer().anonymous.get(TEAM_BASE_URL).expect(401);
    });
  });

  describe('GET /api/v2/team/members', () => {
    it('returns the current user', async () => {
      const user = await me();
      const response = await peer().authRequest('get', `${TEAM_BASE_URL}/members`).expect(200);
      const found = response.body.data.find((m: { email: string }) => m.email === user.email);
      expect(found).toBeTruthy();
      expect(found.isCurrentUser).toBe(true);
    });
  });

  describe('Invitations', () => {
    it('creates a pending invitation and lists then deletes it', async () => {
      const { authRequest } = peer();
      const inviteRes = await authRequest('post', `${TEAM_BASE_URL}/invitation`)
        .send({ email: 'oss-invitee@deploysentinel.com' })
        .expect(200);
      expect(inviteRes.body.data.status).toBe('pending');
      expect(inviteRes.body.data.url).toContain('/join-team?token=');
      const invitationId = inviteRes.body.data.invitationId;

      const listRes = await authRequest('get', `${TEAM_BASE_URL}/invitations`).expect(200);
      expect(listRes.body.data.some((i: { email: string }) => i.email === 'oss-invitee@deploysentinel.com')).toBe(true);

      await authRequest('delete', `${TEAM_BASE_URL}/invitation/${invitationId}`).expect(200);
    });

    it('rejects inviting an existing user', async () => {
      const user = await me();
      await peer().authRequest('post', `${TEAM_BASE_URL}/invitation`).send({ email: user.email }).expect(400);
    });

    it('handles concurrent invites for the same email idempotently', async () => {
      const { authRequest } = peer();
      const email = 'race@deploysentinel.com';
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => authRequest('post', `${TEAM_BASE_URL}/invitation`).send({ email }).run()),
      );

      for (const res of responses) {
        expect(res.status).toBe(200);
      }

      const ids = new Set(responses.map((r) => r.body.data.invitationId));
      expect(ids.size).toBe(1);

      const listRes = await authRequest('get', `${TEAM_BASE_URL}/invitations`).expect(200);
      expect(listRes.body.data.filter((i: { email: string }) => i.email === email).length).toBe(1);
    });
  });
});
