import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, createOrganisation, type JsonAnswer } from './tenant-helpers.js';

/** Users, workspace members, roles (a user key acts with its scopes ∩ its user's role) and `api_keys.user_id`, over HTTP. */
let gw: TestGateway;
let fake: FakeOpenAI;
let seq = 0;
const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
const email = (name: string) => `${name}-${++seq}@example.com`;

function expectError(r: JsonAnswer, status: number, code: string, param?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error).toMatchObject({ code, message: expect.any(String) });
  if (param !== undefined) expect(r.body.error.param ?? r.body.error.message).toContain(param);
}

/** A user with this organisation role and (optionally) workspace role in `workspace`, and a workspace-user key of theirs holding `*`. */
async function userWithKey(
  workspace: string,
  wsRole: string | null,
  orgRole = 'member',
): Promise<{ id: string; key: string; keyId: string }> {
  const user = await admin('POST', '/v1/users', {
    email: email(wsRole ?? orgRole),
    role: orgRole,
    ...(wsRole ? { workspaces: [{ id: workspace, role: wsRole }] } : {}),
  });
  expect(user.status, JSON.stringify(user.body)).toBe(201);
  const key = await admin('POST', '/v1/api-keys', {
    name: `${wsRole} key`,
    type: 'workspace-user',
    workspace_id: workspace,
    user_id: user.body.id,
    scopes: ['*'],
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return { id: user.body.id, key: key.body.key, keyId: key.body.id };
}

const chat = (key: string) =>
  new OpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) },
  }).chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    .then(
      () => 200,
      (e) => (e as { status: number }).status,
    );

let team: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway();
  team = (await admin('POST', '/v1/workspaces', { name: 'Team', slug: 'team' })).body.id;
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

describe('users', () => {
  it('invites a user with memberships (exact shape), finds them by email, refuses a duplicate email in any case', async () => {
    const r = await admin('POST', '/v1/users', { email: 'Ada@Example.com', name: 'Ada', workspaces: [{ id: 'team', role: 'manager' }] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      'created_at',
      'email',
      'id',
      'last_updated_at',
      'name',
      'object',
      'role',
      'status',
      'workspaces',
    ]);
    expect(r.body).toMatchObject({
      object: 'user',
      email: 'Ada@Example.com',
      name: 'Ada',
      role: 'member',
      status: 'active',
      workspaces: [{ id: team, role: 'manager' }],
    });
    expectError(await admin('POST', '/v1/users', { email: 'ada@example.COM' }), 409, 'conflict', 'email');
    const found = await admin('GET', '/v1/users?email=ADA@example.com');
    expect(found.body).toMatchObject({ object: 'list', total: 1, data: [{ id: r.body.id }] });
    expect((await admin('GET', `/v1/users/${r.body.id}`)).body.email).toBe('Ada@Example.com');
    const renamed = await admin('PUT', `/v1/users/${r.body.id}`, { name: 'Ada L.', role: 'admin' });
    expect(renamed.body).toMatchObject({ name: 'Ada L.', role: 'admin' });
  });

  it('refuses bad input: unknown fields, wrong types, bad roles, unknown workspaces and ids', async () => {
    expectError(await admin('POST', '/v1/users', { email: email('x'), nickname: 'x' }), 400, 'invalid_request', 'nickname');
    expectError(await admin('POST', '/v1/users', { email: 7 }), 400, 'invalid_request', 'email');
    expectError(await admin('POST', '/v1/users', { email: 'not-an-email' }), 400, 'invalid_request', 'email');
    expectError(await admin('POST', '/v1/users', { email: email('x'), role: 'superuser' }), 400, 'invalid_request', 'role');
    expectError(
      await admin('POST', '/v1/users', { email: email('x'), workspaces: [{ id: team, role: 'owner' }] }),
      400,
      'invalid_request',
      'role',
    );
    expectError(
      await admin('POST', '/v1/users', { email: email('x'), workspaces: [{ id: 'nowhere', role: 'member' }] }),
      404,
      'not_found',
      'workspaces[0].id',
    );
    expectError(await admin('GET', '/v1/users/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    expectError(await admin('PUT', '/v1/users/00000000-0000-0000-0000-000000000000', { name: 'x' }), 404, 'not_found');
    expectError(await admin('PUT', '/v1/users/00000000-0000-0000-0000-000000000000', { status: 'gone' }), 400, 'invalid_request', 'status');
  });

  it('deleting a user revokes their keys in the same transaction and answers {id, object, deleted}; an empty JSON body is fine', async () => {
    const u = await userWithKey(team, 'member');
    expect(await chat(u.key)).toBe(200);
    const res = await gw.fetch(`/v1/users/${u.id}`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: u.id, object: 'user', deleted: true });
    expect(await chat(u.key)).toBe(401);
    expectError(await admin('GET', `/v1/api-keys/${u.keyId}`), 404, 'not_found');
    const audit = await admin('GET', `/v1/audit-logs?resource_type=user&action=user.delete`);
    expect(audit.body.data.map((e: any) => e.resource_id)).toContain(u.id);
  });

  it('deactivating a user stops their keys; reactivating lets them in again', async () => {
    const u = await userWithKey(team, 'member');
    expect((await admin('PUT', `/v1/users/${u.id}`, { status: 'deactivated' })).body.status).toBe('deactivated');
    expect(await chat(u.key)).toBe(401);
    await admin('PUT', `/v1/users/${u.id}`, { status: 'active' });
    expect(await chat(u.key)).toBe(200);
  });

  it('users of another organisation are unknown (404) and never listed', async () => {
    const otherKey = (await createOrganisation(gw, 'users-other-org')).adminKey;
    const mine = (await admin('POST', '/v1/users', { email: email('mine') })).body;
    expectError(await callAs(gw, otherKey, 'GET', `/v1/users/${mine.id}`), 404, 'not_found');
    expectError(await callAs(gw, otherKey, 'DELETE', `/v1/users/${mine.id}`), 404, 'not_found');
    expect((await callAs(gw, otherKey, 'GET', '/v1/users')).body.total).toBe(0);
    expectError(
      await callAs(gw, otherKey, 'POST', `/v1/workspaces/${team}/members`, { user_id: mine.id, role: 'member' }),
      404,
      'not_found',
    );
  });
});

describe('workspace members', () => {
  it('adds, lists, changes and removes members; refuses bad roles, unknown users and duplicates', async () => {
    const u = (await admin('POST', '/v1/users', { email: email('m') })).body;
    const added = await admin('POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'member' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ object: 'workspace_member', workspace_id: team, user_id: u.id, role: 'member', email: u.email });
    expectError(await admin('POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'member' }), 409, 'conflict', 'user_id');
    expectError(await admin('POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'owner' }), 400, 'invalid_request', 'role');
    expectError(await admin('POST', `/v1/workspaces/${team}/members`, { user_id: 'nobody', role: 'member' }), 404, 'not_found', 'user_id');
    expectError(
      await admin('POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'member', extra: true }),
      400,
      'invalid_request',
      'extra',
    );
    expectError(await admin('POST', '/v1/workspaces/nowhere/members', { user_id: u.id, role: 'member' }), 404, 'not_found');
    const list = await admin('GET', `/v1/workspaces/team/members`);
    expect(list.body.data.map((m: any) => m.user_id)).toContain(u.id);
    expect((await admin('PUT', `/v1/workspaces/${team}/members/${u.id}`, { role: 'manager' })).body.role).toBe('manager');
    expect((await admin('GET', `/v1/users/${u.id}`)).body.workspaces).toEqual([{ id: team, role: 'manager' }]);
    expect((await admin('DELETE', `/v1/workspaces/${team}/members/${u.id}`)).body).toEqual({
      id: u.id,
      object: 'workspace_member',
      deleted: true,
    });
    expectError(await admin('DELETE', `/v1/workspaces/${team}/members/${u.id}`), 404, 'not_found');
  });
});

describe('roles', () => {
  const config = { name: 'c', config: { provider: 'openai', api_key: 'sk-fake' } };

  it('a member cannot write configs; a manager can', async () => {
    const member = await userWithKey(team, 'member');
    expectError(await callAs(gw, member.key, 'POST', '/v1/configs', config), 403, 'forbidden', 'configs.write');
    expect((await callAs(gw, member.key, 'GET', '/v1/configs')).status).toBe(200);
    expect(await chat(member.key)).toBe(200);
    const manager = await userWithKey(team, 'manager');
    expect((await callAs(gw, manager.key, 'POST', '/v1/configs', config)).status).toBe(201);
  });

  it('a manager reads service keys but cannot create them; a member cannot read them', async () => {
    const manager = await userWithKey(team, 'manager');
    await admin('POST', '/v1/api-keys', { name: 'team svc', type: 'workspace-service', workspace_id: team });
    const keys = await callAs(gw, manager.key, 'GET', '/v1/api-keys');
    expect(keys.status).toBe(200);
    expect(keys.body.data.some((k: any) => k.type === 'workspace-service')).toBe(true);
    expectError(
      await callAs(gw, manager.key, 'POST', '/v1/api-keys', { name: 'svc', type: 'workspace-service', scopes: ['completions.write'] }),
      403,
      'forbidden',
    );
    const own = await callAs(gw, manager.key, 'POST', '/v1/api-keys', {
      name: 'mine',
      type: 'workspace-user',
      scopes: ['completions.write'],
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.user_id).toBe(manager.id);
    const member = await userWithKey(team, 'member');
    expectError(await callAs(gw, member.key, 'GET', '/v1/api-keys'), 403, 'forbidden', 'api_keys.read');
    expectError(await callAs(gw, member.key, 'DELETE', `/v1/api-keys/${own.body.id}`), 403, 'forbidden');
  });

  it('a workspace admin manages members and settings of its workspace, but cannot create or archive workspaces', async () => {
    const wsAdmin = await userWithKey(team, 'admin');
    const u = (await admin('POST', '/v1/users', { email: email('added') })).body;
    expect((await callAs(gw, wsAdmin.key, 'POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'member' })).status).toBe(201);
    expect((await callAs(gw, wsAdmin.key, 'PUT', `/v1/workspaces/${team}`, { description: 'by the ws admin' })).status).toBe(200);
    expectError(await callAs(gw, wsAdmin.key, 'POST', '/v1/workspaces', { name: 'nope' }), 403, 'forbidden');
    expectError(await callAs(gw, wsAdmin.key, 'DELETE', `/v1/workspaces/${team}`), 403, 'forbidden');
    expectError(
      await callAs(gw, wsAdmin.key, 'PUT', '/v1/organisation/settings', { membersViewAllData: false }),
      403,
      'forbidden',
      'organisation.write',
    );
    const manager = await userWithKey(team, 'manager');
    expectError(
      await callAs(gw, manager.key, 'POST', `/v1/workspaces/${team}/members`, { user_id: u.id, role: 'admin' }),
      403,
      'forbidden',
      'workspaces.write',
    );
  });

  it('an organisation member without a membership sees nothing; organisation admins act as workspace admin everywhere', async () => {
    const member = await userWithKey(team, 'member');
    await admin('DELETE', `/v1/workspaces/${team}/members/${member.id}`);
    expect(await chat(member.key)).toBe(403);
    expectError(await callAs(gw, member.key, 'GET', '/v1/configs'), 403, 'forbidden');
    expectError(await callAs(gw, member.key, 'GET', '/v1/workspaces'), 403, 'forbidden');
    const orgAdmin = await userWithKey(team, null, 'admin');
    expect((await callAs(gw, orgAdmin.key, 'POST', `/v1/workspaces/${team}/members`, { user_id: member.id, role: 'member' })).status).toBe(
      201,
    );
    expect(await chat(member.key)).toBe(200);
  });

  it('a user key acts with its scopes ∩ its role', async () => {
    const manager = await userWithKey(team, 'manager');
    const narrow = await callAs(gw, manager.key, 'POST', '/v1/api-keys', {
      name: 'narrow',
      type: 'workspace-user',
      scopes: ['configs.read'],
    });
    expect(narrow.status).toBe(201);
    expectError(await callAs(gw, narrow.body.key, 'POST', '/v1/configs', config), 403, 'forbidden', 'configs.write');
    expect(await chat(narrow.body.key)).toBe(403);
  });
});

describe('api_keys.user_id', () => {
  it('is required for workspace-user keys made by a service key, must be a member of the workspace, and is answered', async () => {
    expectError(
      await admin('POST', '/v1/api-keys', { name: 'u', type: 'workspace-user', workspace_id: team }),
      400,
      'invalid_request',
      'user_id',
    );
    const outsider = (await admin('POST', '/v1/users', { email: email('outsider') })).body;
    expectError(
      await admin('POST', '/v1/api-keys', { name: 'u', type: 'workspace-user', workspace_id: team, user_id: outsider.id }),
      400,
      'invalid_request',
      'user_id',
    );
    expectError(
      await admin('POST', '/v1/api-keys', { name: 'u', type: 'workspace-user', workspace_id: team, user_id: 'nobody' }),
      404,
      'not_found',
      'user_id',
    );
    expectError(
      await admin('POST', '/v1/api-keys', { name: 's', type: 'workspace-service', user_id: outsider.id }),
      400,
      'invalid_request',
      'user_id',
    );
    const u = await userWithKey(team, 'member');
    const k = await admin('GET', `/v1/api-keys/${u.keyId}`);
    expect(k.body.user_id).toBe(u.id);
    const svc = await admin('POST', '/v1/api-keys', { name: 's', type: 'workspace-service' });
    expect(svc.body.user_id).toBeNull();
  });
});
