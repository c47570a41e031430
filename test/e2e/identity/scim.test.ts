import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * SCIM 2.0 (control-plane.md §5) over HTTP: tokens, discovery, request sequences shaped exactly as
 * Okta and Microsoft Entra send them (memberships checked after each step), group-to-workspace
 * mappings and their role rules, deactivation revoking sessions, keys and MCP connections, and bad input answered in
 * the SCIM error shape.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM 2.0', () => {
  let gw: TestGateway;
  let token: string;
  let tokenId: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  /** A SCIM request with the token (`application/scim+json`); `raw` sends the body text as is. */
  async function scim(
    method: string,
    path: string,
    body?: unknown,
    opts: { token?: string | null; raw?: string } = {},
  ): Promise<{ status: number; body: Json; type: string | null }> {
    const headers: Record<string, string> = { accept: 'application/scim+json' };
    const t = opts.token === undefined ? token : opts.token;
    if (t !== null) headers.authorization = `Bearer ${t}`;
    const text = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (text !== undefined) headers['content-type'] = 'application/scim+json; charset=utf-8';
    const res = await fetch(`${gw.url}/v1/scim/v2${path}`, { method, headers, ...(text !== undefined ? { body: text } : {}) });
    const out = await res.text();
    return { status: res.status, body: out ? JSON.parse(out) : null, type: res.headers.get('content-type') };
  }

  function expectScimError(r: { status: number; body: Json }, status: number, scimType?: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.schemas).toEqual([ERROR]);
    expect(r.body.status).toBe(String(status));
    expect(r.body.detail).toEqual(expect.any(String));
    if (scimType) expect(r.body.scimType).toBe(scimType);
  }

  async function workspace(name: string): Promise<string> {
    const r = await admin('POST', '/v1/workspaces', { name, slug: `${name}-${randomId(6).toLowerCase()}` });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id;
  }

  /** The user's memberships as the users API shows them: workspace id → role. */
  async function memberships(userId: string): Promise<Record<string, string>> {
    const r = await admin('GET', `/v1/users/${userId}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return Object.fromEntries(r.body.workspaces.map((w: { id: string; role: string }) => [w.id, w.role]));
  }

  async function map(workspaceId: string, role: string, group: { scim_group_id?: string; scim_group_name?: string }): Promise<JsonAnswer> {
    return admin('POST', '/v1/scim/workspaces', { workspace_id: workspaceId, role, ...group });
  }

  /** A user key of `userId` in `workspaceId` and a console session started with it. */
  async function credentials(userId: string, workspaceId: string): Promise<{ key: string; cookie: string }> {
    const k = await admin('POST', '/v1/api-keys', { name: 'user key', type: 'workspace-user', workspace_id: workspaceId, user_id: userId });
    expect(k.status, JSON.stringify(k.body)).toBe(201);
    const login = await fetch(`${gw.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: k.body.key }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((l) => l.split(';')[0])
      .join('; ');
    return { key: k.body.key, cookie };
  }

  async function sessionStatus(cookie: string): Promise<number> {
    return (await fetch(`${gw.url}/v1/auth/session`, { headers: { cookie } })).status;
  }

  beforeAll(async () => {
    gw = await startGateway();
    const t = await admin('POST', '/v1/scim/tokens');
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    token = t.body.token;
    tokenId = t.body.id;
  });
  afterAll(async () => {
    await gw?.close();
  });

  describe('tokens', () => {
    it('POST answers the token once; GET lists hints only; a workspace key may not manage tokens', async () => {
      expect(token).toMatch(/^scim_/);
      const list = await admin('GET', '/v1/scim/tokens');
      expect(list.status).toBe(200);
      const mine = list.body.data.find((x: Json) => x.id === tokenId);
      expect(mine).toMatchObject({ object: 'scim_token', token_hint: `scim_…${token.slice(-4)}` });
      expect(JSON.stringify(list.body)).not.toContain(token);
      const ws = await admin('POST', '/v1/api-keys', { name: 'ws', type: 'workspace-service', scopes: ['*'] });
      expect((await callAs(gw, ws.body.key, 'POST', '/v1/scim/tokens')).status).toBe(403);
      expect((await callAs(gw, ws.body.key, 'GET', '/v1/scim/tokens')).status).toBe(403);
      expect((await admin('POST', '/v1/scim/tokens', { name: 'x' })).status).toBe(400);
    });

    it('without a token, with a gateway key or with a revoked token SCIM answers 401 in the SCIM error shape', async () => {
      expectScimError(await scim('GET', '/Users', undefined, { token: null }), 401);
      expectScimError(await scim('GET', '/Users', undefined, { token: gw.adminKey }), 401);
      const extra = await admin('POST', '/v1/scim/tokens');
      expect((await scim('GET', '/Users', undefined, { token: extra.body.token })).status).toBe(200);
      expect((await admin('DELETE', `/v1/scim/tokens/${extra.body.id}`)).status).toBe(200);
      expectScimError(await scim('GET', '/Users', undefined, { token: extra.body.token }), 401);
      const audit = await admin('GET', '/v1/audit-logs?action=scim_token.delete');
      expect(audit.body.data[0]).toMatchObject({ resource_id: extra.body.id });
    });
  });

  it('discovery: ServiceProviderConfig, Schemas, ResourceTypes', async () => {
    const spc = await scim('GET', '/ServiceProviderConfig');
    expect(spc.status).toBe(200);
    expect(spc.type).toContain('application/scim+json');
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((s: Json) => s.id)).toEqual([USER, GROUP, ENTERPRISE]);
    expect((await scim('GET', `/Schemas/${USER}`)).body.name).toBe('User');
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((t: Json) => t.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim('GET', '/ResourceTypes/Group')).body.schema).toBe(GROUP);
    expectScimError(await scim('GET', '/ResourceTypes/Printer'), 404);
    expectScimError(await scim('GET', '/Printers'), 404);
  });

  it('replays an Okta sequence: lookup, create, push group, rename, update, remove member, deactivate', async () => {
    const engineering = await workspace('okta-eng');
    const email = `dave.${randomId(5).toLowerCase()}@example.com`;
    const lookup = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`);
    expect(lookup.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Dave', familyName: 'Okta' },
      emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Dave Okta',
      locale: 'en-US',
      externalId: '00u1okta',
      groups: [],
      password: 'initial-Pa55word',
      active: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const userId = created.body.id;
    expect(created.body).toMatchObject({
      userName: email,
      externalId: '00u1okta',
      active: true,
      displayName: 'Dave Okta',
      groups: [],
      meta: { resourceType: 'User' },
    });
    expect(JSON.stringify(created.body)).not.toContain('Pa55word');
    expect((await admin('GET', `/v1/users/${userId}`)).body).toMatchObject({
      email,
      name: 'Dave Okta',
      role: 'member',
      status: 'active',
      workspaces: [],
    });
    // The admin maps Okta's group by name before Okta pushes it: the group is created by the mapping.
    const mapping = await map(engineering, 'Manager', { scim_group_name: 'Okta Engineering' });
    expect(mapping.status, JSON.stringify(mapping.body)).toBe(201);
    expect(mapping.body).toMatchObject({
      object: 'scim_workspace_mapping',
      workspace_id: engineering,
      role: 'manager',
      scim_group_name: 'Okta Engineering',
    });
    const found = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Okta Engineering"')}&startIndex=1&count=100`);
    expect(found.body.totalResults).toBe(1);
    const groupId = found.body.Resources[0].id;
    expect(groupId).toBe(mapping.body.scim_group_id);
    const push = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: email }] }],
    });
    expect(push.status, JSON.stringify(push.body)).toBe(200);
    expect(push.body.members).toEqual([expect.objectContaining({ value: userId })]);
    expect(await memberships(userId)).toEqual({ [engineering]: 'manager' });
    const renamed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Okta Engineers' } }],
    });
    expect(renamed.body.displayName).toBe('Okta Engineers');
    expect(renamed.body.members).toHaveLength(1);
    expect((await admin('GET', '/v1/scim/workspaces')).body.data.find((m: Json) => m.id === mapping.body.id).scim_group_name).toBe(
      'Okta Engineers',
    );
    expect(await memberships(userId)).toEqual({ [engineering]: 'manager' });
    const put = await scim('PUT', `/Users/${userId}`, {
      ...created.body,
      name: { givenName: 'David', familyName: 'Okta' },
      displayName: 'David Okta',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await admin('GET', `/v1/users/${userId}`)).body.name).toBe('David Okta');
    const removed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }],
    });
    expect(removed.body.members).toEqual([]);
    expect(await memberships(userId)).toEqual({});
    await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: email }] }],
    });
    expect(await memberships(userId)).toEqual({ [engineering]: 'manager' });
    const { key, cookie } = await credentials(userId, engineering);
    expect((await callAs(gw, key, 'GET', '/v1/configs')).status).toBe(200);
    expect(await sessionStatus(cookie)).toBe(200);
    // An upstream MCP OAuth connection of the user (section 9): deactivation removes it with the keys and sessions.
    const db = gw.gateway.deps.store.db;
    const orgId = (await db.selectFrom('users').select('organisation_id').where('id', '=', userId).executeTakeFirstOrThrow())
      .organisation_id;
    await db
      .insertInto('mcp_connections')
      .values({
        id: randomId(12),
        organisation_id: orgId,
        mcp_integration_id: 'mcp-int-okta',
        user_id: userId,
        access_token_ciphertext: 'sealed-a',
        refresh_token_ciphertext: 'sealed-r',
        expires_at: null,
        scopes: '',
        connected_at: 1,
        updated_at: 1,
      })
      .execute();
    const deactivated = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect((await admin('GET', `/v1/users/${userId}`)).body.status).toBe('deactivated');
    expect((await callAs(gw, key, 'GET', '/v1/configs')).status).toBe(401);
    expect(await sessionStatus(cookie)).toBe(401);
    const revokedKeys = await gw.gateway.deps.store.db.selectFrom('api_keys').select('status').where('user_id', '=', userId).execute();
    expect(revokedKeys.map((k) => k.status)).toEqual(['revoked']);
    expect(await db.selectFrom('mcp_connections').select('id').where('user_id', '=', userId).execute()).toEqual([]);
    const audit = await admin('GET', `/v1/audit-logs?action=user.deactivate`);
    expect(audit.body.data[0]).toMatchObject({ actor: { type: 'scim', id: tokenId }, resource_id: userId });
  });

  it('replays a Microsoft Entra sequence: probe, create with the enterprise extension, group create, Add/Replace/Remove ops, "False", delete', async () => {
    const sales = await workspace('entra-sales');
    const probe = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "2f6e0e3a-2f52-4e0f-9d0b-8b1d4d0c3f11"')}`);
    expect(probe.body.totalResults).toBe(0);
    const upn = `eve.${randomId(5).toLowerCase()}@contoso.com`;
    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: 'e7a1-entra',
      userName: upn,
      active: true,
      displayName: 'Eve Entra',
      emails: [{ primary: true, type: 'work', value: upn }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Eve Entra', familyName: 'Entra', givenName: 'Eve' },
      roles: [],
      [ENTERPRISE]: { department: 'R&D', employeeNumber: '42' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const userId = created.body.id;
    expect(created.body.schemas).toEqual([USER, ENTERPRISE]);
    expect(created.body[ENTERPRISE]).toEqual({ department: 'R&D', employeeNumber: '42' });
    expect((await scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "e7a1-entra"`)}`)).body.Resources[0].id).toBe(userId);
    const group = await scim('POST', '/Groups', { schemas: [GROUP], externalId: 'g-entra-1', displayName: 'Entra Sales', members: [] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const groupId = group.body.id;
    expect((await map(sales, 'ADMIN', { scim_group_id: groupId })).status).toBe(201);
    expect(await memberships(userId)).toEqual({});
    const add = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }],
    });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect(await memberships(userId)).toEqual({ [sales]: 'admin' });
    const update = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Eve Q. Entra' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: `q.${upn}` },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Sales' },
      ],
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(update.body[ENTERPRISE].department).toBe('Sales');
    expect((await admin('GET', `/v1/users/${userId}`)).body).toMatchObject({ email: `q.${upn}`, name: 'Eve Q. Entra' });
    const rename = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'displayName', value: 'Entra Sales EMEA' }],
    });
    expect(rename.body.displayName).toBe('Entra Sales EMEA');
    const slim = await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Entra Sales EMEA"')}`);
    expect(slim.body.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    expect(await memberships(userId)).toEqual({ [sales]: 'admin' });
    const remove = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: userId }] }],
    });
    expect(remove.status, JSON.stringify(remove.body)).toBe(200);
    expect(await memberships(userId)).toEqual({});
    await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }],
    });
    const { key, cookie } = await credentials(userId, sales);
    const off = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await callAs(gw, key, 'GET', '/v1/configs')).status).toBe(401);
    expect(await sessionStatus(cookie)).toBe(401);
    const on = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(on.body.active).toBe(true);
    expect((await scim('DELETE', `/Users/${userId}`)).status).toBe(204);
    expectScimError(await scim('GET', `/Users/${userId}`), 404);
    expect((await admin('GET', `/v1/users/${userId}`)).body).toMatchObject({ status: 'deactivated', workspaces: [] });
    expect((await scim('GET', `/Groups/${groupId}`)).body.members).toEqual([]);
    expect((await scim('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expectScimError(await scim('GET', `/Groups/${groupId}`), 404);
    expect((await admin('GET', '/v1/scim/workspaces')).body.data.some((m: Json) => m.scim_group_id === groupId)).toBe(false);
  });

  it('mappings: the highest role of several groups wins; leaving the last granting group removes the membership; one role per group', async () => {
    const ws = await workspace('multi');
    const other = await workspace('multi-other');
    const u = await scim('POST', '/Users', { schemas: [USER], userName: `multi.${randomId(5).toLowerCase()}@example.com` });
    expect(u.status, JSON.stringify(u.body)).toBe(201);
    const a = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `A-${randomId(4)}`, members: [{ value: u.body.id }] });
    const b = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `B-${randomId(4)}` });
    expect((await map(ws, 'member', { scim_group_id: a.body.id })).status).toBe(201);
    expect(await memberships(u.body.id)).toEqual({ [ws]: 'member' });
    const mb = await map(ws, 'admin', { scim_group_id: b.body.id });
    expect(mb.status).toBe(201);
    await scim('PATCH', `/Groups/${b.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: u.body.id }] }],
    });
    expect(await memberships(u.body.id)).toEqual({ [ws]: 'admin' });
    const clash = await map(other, 'manager', { scim_group_id: b.body.id });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('conflict');
    expect((await map(ws, 'admin', { scim_group_id: b.body.id })).status).toBe(409);
    expect((await map(other, 'Admin', { scim_group_id: b.body.id })).status).toBe(201);
    expect(await memberships(u.body.id)).toEqual({ [ws]: 'admin', [other]: 'admin' });
    await scim('PATCH', `/Groups/${b.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${u.body.id}"]` }],
    });
    expect(await memberships(u.body.id)).toEqual({ [ws]: 'member' });
    expect(
      (
        await admin(
          'DELETE',
          `/v1/scim/workspaces/${(await admin('GET', '/v1/scim/workspaces')).body.data.find((m: Json) => m.scim_group_id === a.body.id).id}`,
        )
      ).status,
    ).toBe(200);
    expect(await memberships(u.body.id)).toEqual({});
  });

  it('mapping bad input: role, both or neither group, unknown workspace or group, unknown field', async () => {
    const ws = await workspace('bad-map');
    const cases: Array<[Json, number, string]> = [
      [{ workspace_id: ws, role: 'owner', scim_group_name: 'x' }, 400, 'role'],
      [{ workspace_id: ws, role: 'member', scim_group_name: 'x', scim_group_id: 'y' }, 400, 'scim_group'],
      [{ workspace_id: ws, role: 'member' }, 400, 'scim_group'],
      [{ workspace_id: 'no-such-ws', role: 'member', scim_group_name: 'x' }, 404, 'workspace_id'],
      [{ workspace_id: ws, role: 'member', scim_group_id: 'no-such-group' }, 404, 'scim_group_id'],
      [{ workspace_id: ws, role: 'member', scim_group_name: 'x', colour: 'red' }, 400, 'colour'],
    ];
    for (const [body, status, param] of cases) {
      const r = await admin('POST', '/v1/scim/workspaces', body);
      expect(r.status, `${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).toBe(status);
      expect(`${r.body.error.param} ${r.body.error.message}`).toContain(param);
    }
    expect((await admin('GET', '/v1/scim/workspaces')).body.data.some((m: Json) => m.workspace_id === ws)).toBe(false);
  });

  it('bad SCIM input is answered in the SCIM error shape with its scimType', async () => {
    const userName = `dup.${randomId(5).toLowerCase()}@example.com`;
    expect((await scim('POST', '/Users', { schemas: [USER], userName })).status).toBe(201);
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: userName.toUpperCase() }), 409, 'uniqueness');
    expectScimError(await scim('POST', '/Users', undefined, { raw: '{"userName": ' }), 400, 'invalidSyntax');
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'x@example.com', shoeSize: 42 }), 400, 'invalidSyntax');
    expectScimError(await scim('POST', '/Users', { schemas: [USER], displayName: 'No Name' }), 400, 'invalidValue');
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'not-an-address' }), 400, 'invalidValue');
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'y@example.com', active: 'maybe' }), 400, 'invalidValue');
    expectScimError(await scim('POST', '/Users', [1, 2]), 400, 'invalidSyntax');
    // Nested past the gateway's JSON depth limit (1,000 levels): refused before parsing, in SCIM's shape, whatever the content type.
    const deep = (levels: number) =>
      `{"schemas":["${USER}"],"userName":"deep@example.com","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    for (const levels of [1001, 100_000]) {
      const r = await scim('POST', '/Users', undefined, { raw: deep(levels) });
      expectScimError(r, 400, 'invalidSyntax');
      expect(r.body.detail).toBe('The request is nested too deeply.');
    }
    const asJson = await fetch(`${gw.url}/v1/scim/v2/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: deep(100_000),
    });
    const asJsonBody = (await asJson.json()) as Json;
    expectScimError({ status: asJson.status, body: asJsonBody }, 400);
    expect(asJsonBody.detail).toBe('The request is nested too deeply.');
    // 1,000 levels are parsed: the user's schema then refuses the unknown member, as it would any other.
    const atLimit = await scim('POST', '/Users', undefined, { raw: deep(1000) });
    expectScimError(atLimit, 400, 'invalidSyntax');
    expect(atLimit.body.detail).not.toBe('The request is nested too deeply.');
    expectScimError(await scim('GET', `/Users?filter=${encodeURIComponent('userName sw "dup"')}`), 400, 'invalidFilter');
    expectScimError(await scim('GET', `/Users?filter=${encodeURIComponent('emails[type eq "work"]')}`), 400, 'invalidFilter');
    expectScimError(
      await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "a" and externalId eq "b"')}`),
      400,
      'invalidFilter',
    );
    expectScimError(await scim('GET', `/Users?filter=${encodeURIComponent('((')}`), 400, 'invalidFilter');
    expectScimError(await scim('GET', '/Users?count=many'), 400, 'invalidValue');
    const u = (await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.Resources[0];
    expectScimError(
      await scim('PATCH', `/Users/${u.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'merge', path: 'active', value: false }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('PATCH', `/Users/${u.id}`, { schemas: [PATCH_OP], Operations: [] }), 400, 'invalidSyntax');
    expectScimError(
      await scim('PATCH', `/Users/${u.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }],
      }),
      400,
    );
    expectScimError(
      await scim('PATCH', `/Users/${u.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'favouriteColour', value: 'red' }],
      }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('PUT', '/Users/00000000-0000-0000-0000-000000000000', { schemas: [USER], userName }), 404);
    expectScimError(
      await scim('POST', '/Groups', { schemas: [GROUP], displayName: `G-${randomId(4)}`, members: [{ value: 'no-such-user' }] }),
      400,
      'invalidValue',
    );
    const g = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Dup-${userName}` });
    expectScimError(await scim('POST', '/Groups', { schemas: [GROUP], displayName: `dup-${userName}` }), 409, 'uniqueness');
    // Removing a member who is not there succeeds (RFC 7644 §3.5.2.2; Okta and Entra retry removals).
    expect(
      (
        await scim('PATCH', `/Groups/${g.body.id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'remove', path: 'members[value eq "nobody"]' }],
        })
      ).status,
    ).toBe(200);
    // Nothing half-done: the failed group create left no group behind.
    expect((await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "no-such"')}`)).body.totalResults).toBe(0);
  });

  it('paging with startIndex and count', async () => {
    const all = await scim('GET', '/Users?count=0');
    expect(all.body.Resources).toEqual([]);
    const total = all.body.totalResults;
    expect(total).toBeGreaterThan(2);
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: total, startIndex: 2, itemsPerPage: 2 });
    const everything = await scim('GET', '/Users');
    expect(page.body.Resources.map((r: Json) => r.id)).toEqual(everything.body.Resources.slice(1, 3).map((r: Json) => r.id));
  });
});
