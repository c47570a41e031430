import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

type Json = Record<string, any>;

/**
 * `user_api_key_auto_create` (runs on SQLite and PostgreSQL, as the whole e2e suite): a user who joins
 * a workspace — invited with memberships, or added as a member — gets a `workspace-user` key there
 * with `creation_mode: "auto"`, made in the same transaction; its value is sealed and shown once, to
 * that user (here through their console session), by reveal.
 */
let gw: TestGateway;
let seq = 0;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await gw.fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function keysOf(userId: string): Promise<Json[]> {
  return gw.gateway.deps.store.db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('creation_mode', '=', 'auto')
    .execute();
}

/** A console session of the user (logged in with a key an admin made for them): cookie and CSRF headers. */
async function sessionOf(userId: string): Promise<Record<string, string>> {
  const key = await call('POST', '/v1/api-keys', { name: 'login', type: 'workspace-user', user_id: userId });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  const res = await fetch(gw.url + '/v1/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key.body.key }),
  });
  expect(res.status).toBe(200);
  const cookies = res.headers.getSetCookie().map((l) => l.split(';')[0]!);
  const csrf = cookies.find((c) => c.startsWith('gw_csrf='))!.slice('gw_csrf='.length);
  return { cookie: cookies.join('; '), 'x-gateway-csrf': csrf };
}

/** A request made by a session (no gateway key). */
async function asSession(
  session: Record<string, string>,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { ...session, ...headers, 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : '{}',
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const email = () => `auto${++seq}-${randomId(6)}@example.com`;

describe('user_api_key_auto_create', () => {
  it('off (the default): joining a workspace makes no key', async () => {
    const u = await call('POST', '/v1/users', { email: email(), workspaces: [{ id: 'default', role: 'member' }] });
    expect(u.status).toBe(201);
    expect(await keysOf(u.body.id)).toHaveLength(0);
  });

  it('on: an invite with a membership makes an auto key, sealed at rest, revealed once to its user only', async () => {
    expect((await call('PUT', '/v1/organisation/settings', { user_api_key_auto_create: true })).status).toBe(200);
    const u = await call('POST', '/v1/users', { email: email(), workspaces: [{ id: 'default', role: 'member' }] });
    expect(u.status).toBe(201);
    const [row] = await keysOf(u.body.id);
    expect(row).toMatchObject({
      type: 'workspace-user',
      workspace_id: gw.gateway.deps.runtime.current.defaultWorkspaceId,
      status: 'active',
      creation_mode: 'auto',
    });
    expect(row!.pending_key_ciphertext).toMatch(/^v1\.[0-9a-f]{8}\./);
    const audit = await call('GET', '/v1/audit-logs?action=user.create&page_size=100');
    expect(audit.body.data.find((e: Json) => e.resource_id === u.body.id).details.auto_api_keys).toEqual([row!.id]);
    const listed = await call('GET', `/v1/api-keys/${row!.id}`);
    expect(listed.body).toMatchObject({ creation_mode: 'auto', user_id: u.body.id });

    // An admin is not that user: refused.
    expect((await call('POST', `/v1/api-keys/${row!.id}/reveal`, {})).status).toBe(403);
    const session = await sessionOf(u.body.id);
    const shown = await asSession(session, 'POST', `/v1/api-keys/${row!.id}/reveal`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toMatchObject({ id: row!.id, object: 'api_key', key: expect.any(String) });
    expect(JSON.stringify(row)).not.toContain(shown.body.key);
    // The value works, as that user's key.
    expect((await call('GET', '/v1/configs', undefined, { 'x-gateway-api-key': shown.body.key })).status).toBe(200);
    const again = await asSession(session, 'POST', `/v1/api-keys/${row!.id}/reveal`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('on: a member add makes an auto key in that workspace, in the same transaction (a refused add makes none)', async () => {
    expect((await call('PUT', '/v1/organisation/settings', { user_api_key_auto_create: true })).status).toBe(200);
    const ws = await call('POST', '/v1/workspaces', {
      name: 'Auto',
      slug: `auto-${randomId(5).toLowerCase()}`,
      settings: { user_api_key_rotation_period: 'monthly' },
    });
    expect(ws.status).toBe(201);
    const u = await call('POST', '/v1/users', { email: email(), workspaces: [{ id: 'default', role: 'member' }] });
    const added = await call('POST', `/v1/workspaces/${ws.body.id}/members`, { user_id: u.body.id, role: 'member' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const inWs = (await keysOf(u.body.id)).filter((k) => k.workspace_id === ws.body.id);
    expect(inWs).toHaveLength(1);
    // The workspace's enforced rotation period applies to it like to any user key.
    expect(JSON.parse(inWs[0]!.rotation_policy)).toEqual({ rotation_period: 'monthly' });
    // A duplicate add is 409 and its transaction (with its key) rolls back.
    expect((await call('POST', `/v1/workspaces/${ws.body.id}/members`, { user_id: u.body.id, role: 'member' })).status).toBe(409);
    expect((await keysOf(u.body.id)).filter((k) => k.workspace_id === ws.body.id)).toHaveLength(1);
    // Its user reveals it from a session acting in that workspace.
    const session = await sessionOf(u.body.id);
    const shown = await asSession(session, 'POST', `/v1/api-keys/${inWs[0]!.id}/reveal`, { 'x-gateway-workspace': ws.body.id });
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect((await call('GET', '/v1/configs', undefined, { 'x-gateway-api-key': shown.body.key })).status).toBe(200);
  });
});
