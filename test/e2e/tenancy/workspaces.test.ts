import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, type JsonAnswer } from './tenant-helpers.js';

/** Workspaces, the organisation and its settings, effective settings and workspace request defaults, over HTTP. */
let gw: TestGateway;
let fake: FakeOpenAI;
const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

function expectError(r: JsonAnswer, status: number, code: string, param?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error).toMatchObject({ code, message: expect.any(String) });
  if (param !== undefined) expect(r.body.error.param ?? r.body.error.message).toContain(param);
}

const providerConfig = (model: string) => ({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url, override_params: { model } });

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

describe('workspaces', () => {
  it('creates a workspace with exactly the specified shape; a slug clash is 409', async () => {
    const r = await admin('POST', '/v1/workspaces', {
      name: 'Team A',
      slug: 'team-a',
      description: 'first',
      metadata: { cost_centre: '42' },
      settings: { membersViewAllData: false },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      'created_at',
      'defaults',
      'description',
      'id',
      'last_updated_at',
      'metadata',
      'name',
      'object',
      'settings',
      'slug',
      'status',
      'usage_limits',
    ]);
    expect(r.body).toMatchObject({
      object: 'workspace',
      name: 'Team A',
      slug: 'team-a',
      description: 'first',
      status: 'active',
      metadata: { cost_centre: '42' },
      settings: { membersViewAllData: false },
      defaults: null,
    });
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expectError(await admin('POST', '/v1/workspaces', { name: 'Again', slug: 'team-a' }), 409, 'conflict', 'slug');
    const bySlug = await admin('GET', '/v1/workspaces/team-a');
    expect(bySlug.body.id).toBe(r.body.id);
    const auto = await admin('POST', '/v1/workspaces', { name: 'No Slug Given' });
    expect(auto.body.slug).toMatch(/^no-slug-given-/);
  });

  it('refuses bad input with 400 naming the field', async () => {
    expectError(await admin('POST', '/v1/workspaces', { name: 'x', colour: 'red' }), 400, 'invalid_request', 'colour');
    expectError(await admin('POST', '/v1/workspaces', { name: 42 }), 400, 'invalid_request', 'name');
    expectError(await admin('POST', '/v1/workspaces', {}), 400, 'invalid_request', 'name');
    expectError(await admin('POST', '/v1/workspaces', { name: 'x', slug: 'Not A Slug' }), 400, 'invalid_request', 'slug');
    expectError(
      await admin('POST', '/v1/workspaces', { name: 'x', settings: { organisationAdminsViewLogs: false } }),
      400,
      'invalid_request',
      'organisationAdminsViewLogs',
    );
    expectError(
      await admin('POST', '/v1/workspaces', { name: 'x', settings: { membersViewAllData: 'yes' } }),
      400,
      'invalid_request',
      'membersViewAllData',
    );
    expectError(
      await admin('POST', '/v1/workspaces', { name: 'x', defaults: { config_id: 'nope' } }),
      404,
      'not_found',
      'defaults.config_id',
    );
    expectError(await admin('GET', '/v1/workspaces/no-such-workspace'), 404, 'not_found');
    expectError(await admin('PUT', '/v1/workspaces/default', { slug: 'renamed' }), 400, 'invalid_request', 'slug');
    expectError(await admin('GET', '/v1/workspaces?status=deleted'), 400, 'invalid_request', 'status');
  });

  it('archives with DELETE (an empty JSON body is fine), lists by status, restores with PUT; the default workspace stays', async () => {
    const ws = (await admin('POST', '/v1/workspaces', { name: 'To archive', slug: 'to-archive' })).body;
    const res = await gw.fetch(`/v1/workspaces/${ws.id}`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: ws.id, object: 'workspace', status: 'archived' });
    expectError(await admin('DELETE', `/v1/workspaces/${ws.id}`), 409, 'conflict');
    const active = await admin('GET', '/v1/workspaces?page_size=100');
    expect(active.body.data.map((w: any) => w.id)).not.toContain(ws.id);
    const both = await admin('GET', '/v1/workspaces?status=active,archived&page_size=100');
    expect(both.body.data.find((w: any) => w.id === ws.id)?.status).toBe('archived');
    expect(both.body.total).toBe(both.body.data.length);
    expectError(await admin('PUT', `/v1/workspaces/${ws.id}`, { name: 'renamed' }), 409, 'conflict');
    expectError(await admin('POST', '/v1/configs', { name: 'c', workspace_id: ws.id, config: providerConfig('m') }), 409, 'conflict');
    const restored = await admin('PUT', `/v1/workspaces/${ws.id}`, { status: 'active' });
    expect(restored.status).toBe(200);
    expect(restored.body.status).toBe('active');
    expect((await admin('POST', '/v1/configs', { name: 'c', workspace_id: ws.id, config: providerConfig('m') })).status).toBe(201);
    expectError(await admin('DELETE', '/v1/workspaces/default'), 409, 'conflict');
  });

  it("an archived workspace's keys get 403 saying so, on the data plane too; restoring lets them in again", async () => {
    const ws = (await admin('POST', '/v1/workspaces', { name: 'Keys', slug: 'keys-ws' })).body;
    await admin('POST', '/v1/configs', { name: 'route', slug: 'route', workspace_id: ws.id, config: providerConfig('gpt-4o-mini') });
    const key = (await admin('POST', '/v1/api-keys', { name: 'svc', type: 'workspace-service', workspace_id: ws.id })).body.key as string;
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-gateway-config': 'route' } });
    expect(
      (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices.length,
    ).toBe(1);
    await admin('DELETE', `/v1/workspaces/${ws.id}`);
    const refused = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused.status).toBe(403);
    expect(refused.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('archived') });
    expectError(await callAs(gw, key, 'GET', '/v1/configs'), 403, 'forbidden');
    await admin('PUT', `/v1/workspaces/${ws.id}`, { status: 'active' });
    expect(
      (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices.length,
    ).toBe(1);
  });

  it('listing archived workspaces needs an organisation owner or admin', async () => {
    const key = (await admin('POST', '/v1/api-keys', { name: 'ws reader', type: 'workspace-service', scopes: ['workspaces.read'] })).body
      .key as string;
    expect((await callAs(gw, key, 'GET', '/v1/workspaces')).status).toBe(200);
    expectError(await callAs(gw, key, 'GET', '/v1/workspaces?status=archived'), 403, 'forbidden');
    expectError(await callAs(gw, key, 'POST', '/v1/workspaces', { name: 'nope' }), 403, 'forbidden');
  });
});

describe('organisation and settings', () => {
  it('reads the organisation with every setting at its default', async () => {
    const r = await admin('GET', '/v1/organisation');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'organisation', slug: 'default', id: gw.gateway.deps.runtime.current.defaultOrganisationId });
    expect(r.body.settings).toEqual({
      user_api_key_rotation_period: null,
      user_api_key_auto_create: false,
      session_settings: { max_session_ttl: 86400 },
      membersViewAllData: true,
      managersViewAllData: true,
      organisationAdminsViewLogs: true,
      organisationAdminsViewLogMetadata: true,
      managersWriteWsIntegrations: true,
      managersWriteWsMcpIntegrations: true,
      managersWriteMcpServers: true,
      log_bodies: false,
    });
  });

  it('changes settings partially and answers the whole settings; validates every key and type', async () => {
    const r = await admin('PUT', '/v1/organisation/settings', {
      user_api_key_rotation_period: 'monthly',
      session_settings: { max_session_ttl: 3600 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      user_api_key_rotation_period: 'monthly',
      session_settings: { max_session_ttl: 3600 },
      membersViewAllData: true,
    });
    const again = await admin('PUT', '/v1/organisation/settings', { membersViewAllData: false });
    expect(again.body).toMatchObject({
      user_api_key_rotation_period: 'monthly',
      session_settings: { max_session_ttl: 3600 },
      membersViewAllData: false,
    });
    expectError(await admin('PUT', '/v1/organisation/settings', { unknownSetting: true }), 400, 'invalid_request', 'unknownSetting');
    expectError(
      await admin('PUT', '/v1/organisation/settings', { session_settings: { max_session_ttl: 899 } }),
      400,
      'invalid_request',
      'max_session_ttl',
    );
    expectError(await admin('PUT', '/v1/organisation/settings', { session_settings: { idle: 1 } }), 400, 'invalid_request', 'idle');
    expectError(
      await admin('PUT', '/v1/organisation/settings', { user_api_key_rotation_period: 'daily' }),
      400,
      'invalid_request',
      'user_api_key_rotation_period',
    );
    expectError(await admin('PUT', '/v1/organisation/settings', { managersViewAllData: 1 }), 400, 'invalid_request', 'managersViewAllData');
    const audit = await admin('GET', '/v1/audit-logs?action=organisation.update');
    expect(audit.body.total).toBe(2);
    const reader = (await admin('POST', '/v1/api-keys', { name: 'org reader', type: 'workspace-service', scopes: ['organisation.read'] }))
      .body.key as string;
    expect((await callAs(gw, reader, 'GET', '/v1/organisation')).status).toBe(200);
    expectError(
      await callAs(gw, reader, 'PUT', '/v1/organisation/settings', { membersViewAllData: true }),
      403,
      'forbidden',
      'organisation.write',
    );
  });

  it('effective settings say where each value comes from', async () => {
    await admin('PUT', '/v1/organisation/settings', { managersViewAllData: false, user_api_key_rotation_period: 'weekly' });
    const ws = (
      await admin('POST', '/v1/workspaces', {
        name: 'Eff',
        slug: 'eff',
        settings: { user_api_key_rotation_period: null, managersWriteMcpServers: false },
      })
    ).body;
    const r = await admin('GET', `/v1/workspaces/${ws.slug}/effective-settings`);
    expect(r.status).toBe(200);
    expect(r.body.settings).toMatchObject({
      user_api_key_rotation_period: { value: null, source: 'workspace' },
      managersWriteMcpServers: { value: false, source: 'workspace' },
      managersViewAllData: { value: false, source: 'organisation' },
      organisationAdminsViewLogs: { value: true, source: 'default' },
      'session_settings.max_session_ttl': { value: 3600, source: 'organisation' },
    });
    const replaced = await admin('PUT', `/v1/workspaces/${ws.id}`, { settings: { membersViewAllData: false } });
    expect(replaced.body.settings).toEqual({ membersViewAllData: false });
    const after = (await admin('GET', `/v1/workspaces/${ws.id}/effective-settings`)).body.settings;
    expect(after.user_api_key_rotation_period).toEqual({ value: 'weekly', source: 'organisation' });
  });
});

describe('workspace request defaults', () => {
  it("apply to the workspace's keys that set none (openai SDK with only a base URL and a gateway key); a key's own default wins", async () => {
    const ws = (await admin('POST', '/v1/workspaces', { name: 'Defaults', slug: 'defaults-ws' })).body;
    const wsConfig = (
      await admin('POST', '/v1/configs', { name: 'ws default', workspace_id: ws.id, config: providerConfig('workspace-model') })
    ).body;
    const keyConfig = (
      await admin('POST', '/v1/configs', { name: 'key default', workspace_id: ws.id, config: providerConfig('key-model') })
    ).body;
    const other = (await admin('POST', '/v1/configs', { name: 'elsewhere', config: providerConfig('x') })).body;
    expectError(
      await admin('PUT', `/v1/workspaces/${ws.id}`, { defaults: { config_id: other.id } }),
      404,
      'not_found',
      'defaults.config_id',
    );
    expectError(
      await admin('PUT', `/v1/workspaces/${ws.id}`, { defaults: { config_id: wsConfig.id, extra: 1 } }),
      400,
      'invalid_request',
      'extra',
    );
    const put = await admin('PUT', `/v1/workspaces/${ws.id}`, { defaults: { config_id: wsConfig.slug, metadata: { team: 'defaults' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.defaults).toEqual({ config_id: wsConfig.id, metadata: { team: 'defaults' } });

    const plain = (await admin('POST', '/v1/api-keys', { name: 'plain', type: 'workspace-service', workspace_id: ws.id })).body
      .key as string;
    const own = (
      await admin('POST', '/v1/api-keys', {
        name: 'own',
        type: 'workspace-service',
        workspace_id: ws.id,
        defaults: { config_id: keyConfig.id },
      })
    ).body.key as string;
    const ask = (key: string) =>
      new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    expect((await ask(plain)).model).toBe('workspace-model');
    expect((await ask(own)).model).toBe('key-model');

    await admin('PUT', `/v1/workspaces/${ws.id}`, { defaults: { config_id: wsConfig.id, allow_config_override: false } });
    const overriding = await new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: plain,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-config': JSON.stringify(providerConfig('other')) },
    }).chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(overriding.status).toBe(403);
    await admin('PUT', `/v1/workspaces/${ws.id}`, { defaults: null });
    const none = await ask(plain).catch((e) => e);
    expect(none.status).toBe(400);
  });
});

describe('/openapi.json', () => {
  it('documents the tenancy routes with their schemas', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as any;
    const ops = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(ops('/v1/workspaces')).toEqual(['get', 'post']);
    expect(ops('/v1/workspaces/{id}')).toEqual(['delete', 'get', 'put']);
    expect(ops('/v1/workspaces/{id}/effective-settings')).toEqual(['get']);
    expect(ops('/v1/workspaces/{id}/members')).toEqual(['get', 'post']);
    expect(ops('/v1/workspaces/{id}/members/{user_id}')).toEqual(['delete', 'get', 'put']);
    expect(ops('/v1/users')).toEqual(['get', 'post']);
    expect(ops('/v1/users/{id}')).toEqual(['delete', 'get', 'put']);
    expect(ops('/v1/organisation')).toEqual(['get']);
    expect(ops('/v1/organisation/settings')).toEqual(['put']);
    const settingsBody = doc.paths['/v1/organisation/settings'].put.requestBody.content['application/json'].schema;
    expect(Object.keys(settingsBody.properties)).toContain('session_settings');
    expect(doc.paths['/v1/workspaces'].post.responses['201'].content['application/json'].schema.properties.status).toBeDefined();
  });
});
