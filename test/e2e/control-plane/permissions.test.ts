import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { uuid } from '../../../src/foundation/lib/ids.js';

type Json = Record<string, any>;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

async function call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Json }> {
  const res = await gw.fetch(path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: key ? { 'x-gateway-api-key': key } : {},
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function newKey(body: Json, key?: string): Promise<Json> {
  const res = await call('POST', '/v1/api-keys', body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('least privilege', () => {
  it('a workspace-service key created without scopes reads and calls models but cannot administer', async () => {
    const plain = await newKey({ name: 'plain', type: 'workspace-service' });
    const victim = await newKey({ name: 'victim', type: 'workspace-service' });
    expect((await call('GET', '/v1/configs', undefined, plain.key)).status).toBe(200);
    const del = await call('DELETE', `/v1/api-keys/${victim.id}`, undefined, plain.key);
    expect(del.status).toBe(403);
    expect(del.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('api_keys.write') });
    expect(
      (await call('POST', '/v1/configs', { name: 'c', config: { provider: 'openai', api_key: 'sk-in-config' } }, plain.key)).status,
    ).toBe(403);
    expect((await call('POST', '/v1/api-keys', { name: 'x' }, plain.key)).status).toBe(403);
    expect((await call('GET', `/v1/api-keys/${victim.id}`)).body.status).toBe('active');
  });

  it('a principal grants only scopes it holds, defaults included; unknown scopes are 400', async () => {
    const granter = await newKey({ name: 'granter', scopes: ['api_keys.write', 'configs.*'] });
    expect((await newKey({ name: 'ok', scopes: ['configs.read'] }, granter.key)).scopes).toEqual(['configs.read']);
    expect((await newKey({ name: 'ok2', scopes: ['configs.*'] }, granter.key)).scopes).toEqual(['configs.*']);
    const wider = await call('POST', '/v1/api-keys', { name: 'no', scopes: ['prompts.read'] }, granter.key);
    expect(wider.status).toBe(403);
    expect(wider.body.error.message).toContain('prompts.read');
    const star = await call('POST', '/v1/api-keys', { name: 'no', scopes: ['*'] }, granter.key);
    expect(star.status).toBe(403);
    const defaults = await call('POST', '/v1/api-keys', { name: 'no-scopes' }, granter.key);
    expect(defaults.status).toBe(403);
    expect(defaults.body.error.message).toContain('completions.write');
    const unknown = await call('POST', '/v1/api-keys', { name: 'bad', scopes: ['configs.destroy'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', param: 'scopes' });
  });

  it('a key never changes its own scopes, nor gives another key scopes it lacks', async () => {
    const self = await newKey({ name: 'self', scopes: ['api_keys.write', 'api_keys.read', 'configs.read'] });
    const own = await call('PUT', `/v1/api-keys/${self.id}`, { scopes: ['*'] }, self.key);
    expect(own.status).toBe(403);
    expect((await call('PUT', `/v1/api-keys/${self.id}`, { name: 'renamed' }, self.key)).status).toBe(200);
    const other = await newKey({ name: 'other', scopes: ['configs.read'] }, self.key);
    expect((await call('PUT', `/v1/api-keys/${other.id}`, { scopes: ['configs.write'] }, self.key)).status).toBe(403);
    expect((await call('GET', `/v1/api-keys/${self.id}`)).body.scopes).toEqual(['api_keys.write', 'api_keys.read', 'configs.read']);
  });

  it("another workspace's ids and workspace_id are 404, never 403", async () => {
    const deps = gw.gateway.deps;
    const wsB = uuid();
    await deps.store.db
      .insertInto('workspaces')
      .values({
        id: wsB,
        organisation_id: deps.runtime.current.defaultOrganisationId,
        name: 'B',
        slug: 'b',
        status: 'active',
        settings: '{}',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await deps.runtime.changed();
    const inB = await call('POST', '/v1/configs', {
      name: 'b-config',
      config: { provider: 'openai', api_key: 'sk-in-config' },
      workspace_id: wsB,
    });
    expect(inB.status).toBe(201);
    const keyA = await newKey({ name: 'a-admin', scopes: ['configs.*', 'api_keys.*', 'logs.read'] });
    expect((await call('GET', `/v1/configs/${inB.body.id}`, undefined, keyA.key)).status).toBe(404);
    expect((await call('PUT', `/v1/configs/${inB.body.id}`, { name: 'x' }, keyA.key)).status).toBe(404);
    expect((await call('DELETE', `/v1/configs/${inB.body.id}`, undefined, keyA.key)).status).toBe(404);
    const foreign = await call(
      'POST',
      '/v1/configs',
      { name: 'c', config: { provider: 'openai', api_key: 'sk-in-config' }, workspace_id: wsB },
      keyA.key,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.param).toBe('workspace_id');
    expect((await call('GET', '/v1/configs?workspace_id=b', undefined, keyA.key)).status).toBe(404);
    expect((await call('GET', '/v1/logs?workspace_id=b', undefined, keyA.key)).status).toBe(404);
    const keyB = await newKey({ name: 'b-key', workspace_id: wsB });
    expect((await call('GET', `/v1/api-keys/${keyB.id}`, undefined, keyA.key)).status).toBe(404);
  });
});

describe('audit log', () => {
  it('records each write once, in its transaction, without secrets; filters; organisation keys only', async () => {
    const created = await call('POST', '/v1/configs', {
      name: 'audited',
      slug: 'audited',
      config: { provider: 'openai', api_key: 'sk-in-config' },
    });
    expect(created.status).toBe(201);
    const dup = await call('POST', '/v1/configs', {
      name: 'again',
      slug: 'audited',
      config: { provider: 'openai', api_key: 'sk-in-config' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    const vk = await call('POST', '/v1/virtual-keys', { name: 'vk', provider: 'openai', key: 'sk-secret-value' });
    expect(vk.status).toBe(201);
    const key = await newKey({ name: 'audit-me', scopes: ['configs.read'] });

    const configs = await call('GET', '/v1/audit-logs?resource_type=config&action=config.create');
    expect(configs.status).toBe(200);
    const mine = configs.body.data.filter((e: Json) => e.resource_id === created.body.id);
    expect(mine).toHaveLength(1);
    expect(configs.body.data.some((e: Json) => e.details.slug === 'audited' && e.resource_id !== created.body.id)).toBe(false);
    expect(mine[0]).toMatchObject({
      action: 'config.create',
      resource_type: 'config',
      organisation_id: created.body.organisation_id,
      workspace_id: created.body.workspace_id,
      actor: { type: 'api_key' },
      details: { slug: 'audited' },
    });
    expect(mine[0].created_at).toMatch(/Z$/);
    expect(typeof mine[0].request_id).toBe('string');

    const all = await call('GET', '/v1/audit-logs?page_size=100');
    const text = JSON.stringify(all.body);
    expect(text).not.toContain('sk-secret-value');
    expect(text).not.toContain('sk-in-config');
    expect(text).not.toContain(key.key);
    expect(all.body.data.filter((e: Json) => e.resource_id === key.id)).toHaveLength(1);

    const actor = all.body.data.find((e: Json) => e.resource_id === key.id).actor.id;
    expect(
      (await call('GET', `/v1/audit-logs?actor_id=${actor}&resource_type=virtual_key`)).body.data.map((e: Json) => e.resource_id),
    ).toContain(vk.body.id);
    expect((await call('GET', `/v1/audit-logs?start_time=${new Date(Date.now() + 60_000).toISOString()}`)).body.total).toBe(0);

    const wsAuditor = await newKey({ name: 'ws-auditor', type: 'workspace-service', scopes: ['audit_logs.read'] });
    expect((await call('GET', '/v1/audit-logs', undefined, wsAuditor.key)).status).toBe(403);
    const orgReader = await newKey({ name: 'org-reader', type: 'organisation-service' });
    const refused = await call('GET', '/v1/audit-logs', undefined, orgReader.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('audit_logs.read');
  });
});

describe('OpenAPI', () => {
  it('describes the answers of admin routes', async () => {
    const doc = (await (await fetch(gw.url + '/openapi.json')).json()) as Json;
    const post = doc.paths['/v1/configs'].post;
    expect(post.responses['201'].content['application/json'].schema.properties).toHaveProperty('slug');
    expect(post.responses['4XX'] ?? post.responses['4xx']).toBeDefined();
    expect(doc.paths['/v1/api-keys/{id}/rotate'].post.responses['200'].content['application/json'].schema.properties).toHaveProperty('key');
    expect(doc.paths['/v1/audit-logs'].get.responses['200']).toBeDefined();
  });
});
