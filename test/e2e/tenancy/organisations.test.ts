import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, type JsonAnswer } from './tenant-helpers.js';

/**
 * `POST /v1/organisations`, over HTTP: only the instance operator's key (the bootstrap's admin key)
 * creates an organisation; the answer's `admin_key` administers that organisation and nothing else.
 */
let gw: TestGateway;
const operator = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

function expectError(r: JsonAnswer, status: number, code: string, param?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(r.body.error).toMatchObject({ code, message: expect.any(String) });
  if (param !== undefined) expect(r.body.error.param ?? r.body.error.message).toContain(param);
}

/** A new key of the bootstrap organisation made by the operator. */
async function keyOfDefault(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const r = await operator('POST', '/v1/api-keys', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, key: r.body.key };
}

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('POST /v1/organisations', () => {
  it('creates an organisation with its default workspace and a first admin key shown once; an audit row records it', async () => {
    const r = await operator('POST', '/v1/organisations', { name: 'Acme Corp', slug: 'acme' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['admin_key', 'created_at', 'id', 'name', 'object', 'settings', 'slug']);
    expect(r.body).toMatchObject({ object: 'organisation', name: 'Acme Corp', slug: 'acme', admin_key: expect.any(String) });
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(r.body.id).not.toBe(gw.gateway.deps.runtime.current.defaultOrganisationId);

    // The key's organisation reads as the answer showed it (without the key), with the default settings.
    const own = await callAs(gw, r.body.admin_key, 'GET', '/v1/organisation');
    expect(own.status).toBe(200);
    const { admin_key: _key, ...organisation } = r.body;
    expect(own.body).toEqual(organisation);
    expect(own.body.settings).toEqual((await operator('GET', '/v1/organisation')).body.settings);

    // Its default workspace, as the bootstrap makes one; its key is an organisation key holding `*`.
    const workspaces = await callAs(gw, r.body.admin_key, 'GET', '/v1/workspaces');
    expect(workspaces.body).toMatchObject({ total: 1, data: [{ slug: 'default', name: 'Default workspace', status: 'active' }] });
    const keys = await callAs(gw, r.body.admin_key, 'GET', '/v1/api-keys');
    expect(keys.body).toMatchObject({
      total: 1,
      data: [{ name: 'admin', type: 'organisation-service', workspace_id: null, organisation_id: r.body.id, scopes: ['*'] }],
    });
    expect(JSON.stringify(keys.body)).not.toContain(r.body.admin_key);

    // Its key acts in its default workspace: a workspace made without naming one lands in its organisation.
    const made = await callAs(gw, r.body.admin_key, 'POST', '/v1/workspaces', { name: 'Team', slug: 'team' });
    expect(made.status).toBe(201);

    const audit = await operator('GET', '/v1/audit-logs?action=organisation.create');
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      action: 'organisation.create',
      resource_type: 'organisation',
      resource_id: r.body.id,
      actor: { type: 'api_key' },
      details: { name: 'Acme Corp', slug: 'acme', admin_key_id: keys.body.data[0].id },
    });
    expect(JSON.stringify(audit.body)).not.toContain(r.body.admin_key);
  });

  it("is refused (403) to every key but the operator's, before the body is read", async () => {
    const other = await operator('POST', '/v1/organisations', { name: 'Other', slug: 'other-owner' });
    expect(other.status).toBe(201);
    const orgAdmin = await keyOfDefault({ name: 'second org admin', type: 'organisation-service', scopes: ['*'] });
    const workspaceKey = await keyOfDefault({ name: 'ws key', type: 'workspace-service', scopes: ['*'] });
    const plainWorkspaceKey = await keyOfDefault({ name: 'ws key, default scopes', type: 'workspace-service' });
    const owner = await operator('POST', '/v1/users', {
      email: 'owner@example.com',
      role: 'owner',
      workspaces: [{ id: 'default', role: 'admin' }],
    });
    expect(owner.status).toBe(201);
    const ownerKey = await keyOfDefault({ name: 'owner key', type: 'workspace-user', user_id: owner.body.id, scopes: ['*'] });
    const refused = {
      "another organisation-service key of the operator's organisation, holding *": orgAdmin.key,
      'the admin key of another organisation': other.body.admin_key,
      'a workspace key holding *': workspaceKey.key,
      'a workspace key with default scopes': plainWorkspaceKey.key,
      'a user key of an organisation owner': ownerKey.key,
    };
    for (const [who, key] of Object.entries(refused)) {
      const r = await callAs(gw, key, 'POST', '/v1/organisations', { name: 'Nope', slug: 'nope' });
      expect(r.status, who).toBe(403);
      expectError(r, 403, 'forbidden');
      // A bad body does not tell a refused caller more.
      expect((await callAs(gw, key, 'POST', '/v1/organisations', { slug: 'Not A Slug' })).status, who).toBe(403);
    }
    expect((await callAs(gw, 'not-a-key', 'POST', '/v1/organisations', { name: 'Nope', slug: 'nope' })).status).toBe(401);
    expect((await operator('POST', '/v1/organisations', { name: 'Now it is made', slug: 'nope' })).status).toBe(201);
  });

  it('refuses a taken slug (409) and bad input (400) in the documented shape', async () => {
    expect((await operator('POST', '/v1/organisations', { name: 'First', slug: 'dup' })).status).toBe(201);
    expectError(await operator('POST', '/v1/organisations', { name: 'Second', slug: 'dup' }), 409, 'conflict', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'Bootstrap slug', slug: 'default' }), 409, 'conflict', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'Bad', slug: 'Not A Slug' }), 400, 'invalid_request', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'Bad', slug: '-leading-dash' }), 400, 'invalid_request', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'Bad', slug: 'a'.repeat(129) }), 400, 'invalid_request', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'Bad', slug: 42 }), 400, 'invalid_request', 'slug');
    expectError(await operator('POST', '/v1/organisations', { name: 'No slug' }), 400, 'invalid_request', 'slug');
    expectError(await operator('POST', '/v1/organisations', { slug: 'no-name' }), 400, 'invalid_request', 'name');
    expectError(await operator('POST', '/v1/organisations', { name: '', slug: 'empty-name' }), 400, 'invalid_request', 'name');
    expectError(
      await operator('POST', '/v1/organisations', { name: 'Extra', slug: 'extra', settings: {} }),
      400,
      'invalid_request',
      'settings',
    );
    const empty = await gw.fetch('/v1/organisations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
    expect(empty.status).toBe(400);
    expect(
      (await operator('GET', '/v1/audit-logs?action=organisation.create')).body.data.filter(
        (e: { details: { slug: string } }) => e.details.slug === 'dup',
      ),
    ).toHaveLength(1);
  });

  it("its admin key is confined to its organisation: the other organisation's ids are 404 both ways", async () => {
    const created = await operator('POST', '/v1/organisations', { name: 'Confined', slug: 'confined' });
    const theirs = created.body.admin_key as string;
    const mine = await operator('POST', '/v1/configs', {
      name: 'operator config',
      slug: 'shared-slug',
      config: { retry: { attempts: 1 } },
    });
    const their = await callAs(gw, theirs, 'POST', '/v1/configs', {
      name: 'their config',
      slug: 'shared-slug',
      config: { retry: { attempts: 2 } },
    });
    expect([mine.status, their.status]).toEqual([201, 201]);
    expectError(await callAs(gw, theirs, 'GET', `/v1/configs/${mine.body.id}`), 404, 'not_found');
    expectError(await callAs(gw, theirs, 'PUT', `/v1/configs/${mine.body.id}`, { name: 'taken over' }), 404, 'not_found');
    expectError(await operator('GET', `/v1/configs/${their.body.id}`), 404, 'not_found');
    expect((await callAs(gw, theirs, 'GET', '/v1/configs/shared-slug')).body.id).toBe(their.body.id);
    expect((await operator('GET', '/v1/configs/shared-slug')).body.id).toBe(mine.body.id);
    expect((await callAs(gw, theirs, 'GET', '/v1/configs')).body.data.map((c: { id: string }) => c.id)).toEqual([their.body.id]);
    const operatorWorkspace = gw.gateway.deps.runtime.current.defaultWorkspaceId;
    expectError(await callAs(gw, theirs, 'GET', `/v1/workspaces/${operatorWorkspace}`), 404, 'not_found');
    expectError(await callAs(gw, theirs, 'GET', `/v1/configs?workspace_id=${operatorWorkspace}`), 404, 'not_found', 'workspace_id');
    const operatorKeys = (await operator('GET', '/v1/api-keys')).body.data as Array<{ id: string }>;
    for (const k of operatorKeys) expectError(await callAs(gw, theirs, 'GET', `/v1/api-keys/${k.id}`), 404, 'not_found');
    expect(
      (await callAs(gw, theirs, 'GET', '/v1/audit-logs')).body.data.every(
        (e: { organisation_id: string }) => e.organisation_id === created.body.id,
      ),
    ).toBe(true);
  });

  it('is described in /openapi.json with its body and its 201 answer', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const op = doc.paths['/v1/organisations']?.post;
    expect(op).toBeDefined();
    expect(JSON.stringify(op.requestBody)).toContain('"slug"');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '4XX']));
    expect(JSON.stringify(op.responses['201'])).toContain('"admin_key"');
  });

  it("the operator's key is rotated only by itself, and stays the operator's after its rotation", async () => {
    const operatorKey = ((await operator('GET', '/v1/api-keys')).body.data as Array<{ id: string; name: string; type: string }>).find(
      (k) => k.name === 'admin' && k.type === 'organisation-service',
    )!;
    const orgAdmin = await keyOfDefault({ name: 'would-be operator', type: 'organisation-service', scopes: ['*'] });
    expectError(await callAs(gw, orgAdmin.key, 'POST', `/v1/api-keys/${operatorKey.id}/rotate`, {}), 403, 'forbidden');
    const rotated = await operator('POST', `/v1/api-keys/${operatorKey.id}/rotate`, {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(
      (await callAs(gw, rotated.body.key, 'POST', '/v1/organisations', { name: 'After rotation', slug: 'after-rotation' })).status,
    ).toBe(201);
    // A key made by the rotating key's organisation admin is never the operator's.
    expectError(await callAs(gw, orgAdmin.key, 'POST', '/v1/organisations', { name: 'Nope', slug: 'nope-2' }), 403, 'forbidden');
  });
});
