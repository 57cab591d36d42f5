/**
 * The caller's user and team (hyperdx v2/index.ts and v2/team.ts at b52a6fa8). The team router
 * validates with zod-express-middleware, so its 400s are an array of `{type, errors: ZodError}`
 * in zod 3's JSON form, unlike every other router's `{message}`. Missing rows answer Express's
 * plain-text `Not Found`.
 */
import { randomBytes } from 'node:crypto';
import type { DomainError, DomainResult, JsonRecord } from './contract.js';
import { failJson, failText, isObjectIdLike, ok } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';

/** The app's default FRONTEND_URL; invitation links point there. */
const FRONTEND_URL = 'http://localhost:8080';
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Z0-9_'+\-.]*)[A-Z0-9_+-]@([A-Z0-9][A-Z0-9-]*\.)+[A-Z]{2,}$/i;

export type Failure = { ok: false; error: DomainError };
type ZodIssue3 = Record<string, unknown>;

/** zod-express-middleware's 400: `[{type, errors: {issues, name: 'ZodError'}}]`. */
export function middlewareFailure(type: 'Body' | 'Params', issues: ZodIssue3[]): Failure {
  const message = `${type} validation failed: ${issues.map((i) => String(i.message)).join('; ')}`;
  return {
    ok: false,
    error: { status: 400, message, selfHostedBody: { type: 'json', body: [{ type, errors: { issues, name: 'ZodError' } }] } },
  };
}

function required(path: string[], expected: string): ZodIssue3 {
  return { code: 'invalid_type', expected, received: 'undefined', path, message: 'Required' };
}

export function idParamFailure(id: string): Failure | undefined {
  return isObjectIdLike(id) ? undefined : middlewareFailure('Params', [{ code: 'custom', message: 'Invalid ObjectId', path: ['id'] }]);
}

export function caller(store: Store): JsonRecord {
  return store.state.users[0] ?? { id: store.state.teamId, email: 'sandbox@localhost', name: 'sandbox' };
}

export function whoami(store: Store): JsonRecord {
  const user = caller(store);
  return {
    _id: user.id ?? '',
    email: user.email ?? '',
    name: user.name ?? '',
    team: store.state.teamId,
    createdAt: user.createdAt ?? null,
    updatedAt: user.updatedAt ?? null,
  };
}

export function getTeam(store: Store): DomainResult<JsonRecord> {
  return ok({ id: store.state.teamId, name: store.state.teamName });
}

export function listTeamMembers(store: Store): DomainResult<JsonRecord[]> {
  const me = caller(store).id;
  return ok(store.state.users.map((u) => ({ id: u.id ?? '', email: u.email ?? '', name: u.name ?? '', isCurrentUser: u.id === me })));
}

export const inviteUrl = (token: string) => `${FRONTEND_URL}/join-team?token=${token}`;

export function parseInvitation(body: unknown): { email: string; name?: string } | Failure {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return middlewareFailure('Body', [
      body === undefined
        ? required([], 'object')
        : {
            code: 'invalid_type',
            expected: 'object',
            received: Array.isArray(body) ? 'array' : typeof body,
            path: [],
            message: `Expected object, received ${Array.isArray(body) ? 'array' : typeof body}`,
          },
    ]);
  }
  const { email, name } = body as Record<string, unknown>;
  const issues: ZodIssue3[] = [];
  if (email === undefined) issues.push(required(['email'], 'string'));
  else if (typeof email !== 'string')
    issues.push({
      code: 'invalid_type',
      expected: 'string',
      received: typeof email,
      path: ['email'],
      message: `Expected string, received ${typeof email}`,
    });
  else if (!EMAIL.test(email)) issues.push({ validation: 'email', code: 'invalid_string', message: 'Invalid email', path: ['email'] });
  if (name !== undefined && typeof name !== 'string')
    issues.push({
      code: 'invalid_type',
      expected: 'string',
      received: typeof name,
      path: ['name'],
      message: `Expected string, received ${typeof name}`,
    });
  if (issues.length > 0) return middlewareFailure('Body', issues);
  return typeof name === 'string' ? { email: email as string, name } : { email: email as string };
}

/** Idempotent per (team, email): a repeated invitation answers the pending one. */
export function createInvitation(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseInvitation(body);
  if ('ok' in parsed) return parsed;
  const email = parsed.email.toLowerCase();
  if (store.state.users.some((u) => text(u.email).toLowerCase() === email)) {
    return failJson(400, 'User already exists. Please contact HyperDX team for support');
  }
  let invite = store.state.invitations.find((i) => i.email === email);
  if (!invite) {
    const now = store.nowIso();
    invite = { id: store.newId(), email, token: randomBytes(32).toString('hex'), createdAt: now, updatedAt: now };
    if (parsed.name !== undefined) invite.name = parsed.name;
    store.commit({ invitations: [...store.state.invitations, invite] });
  }
  return ok({ email, invitationId: text(invite.id), status: 'pending', url: inviteUrl(text(invite.token)) });
}

export function listInvitations(store: Store): DomainResult<JsonRecord[]> {
  return ok(
    store.state.invitations.map((i) => {
      const out: JsonRecord = { id: i.id ?? '', createdAt: i.createdAt ?? null, email: i.email ?? '', url: inviteUrl(text(i.token)) };
      if (i.name !== undefined) out.name = i.name;
      return out;
    }),
  );
}

export function deleteInvitation(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = idParamFailure(id);
  if (bad) return bad;
  if (!findById(store.state.invitations, id)) return failText(404, 'Not Found');
  store.commit({ invitations: store.state.invitations.filter((i) => i.id !== id) });
  return ok({ success: true });
}

export function removeTeamMember(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = idParamFailure(id);
  if (bad) return bad;
  if (id === caller(store).id) return failJson(400, 'You cannot remove yourself from the team');
  if (!findById(store.state.users, id)) return failText(404, 'Not Found');
  store.commit({ users: store.state.users.filter((u) => u.id !== id) });
  return ok({ success: true });
}
