import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, insertKey, insertWorkspace } from '../tenancy/tenant-helpers.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('/v1/integrations', () => {
  const KEY = 'sk-integration-key-0123456789';
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let otherWs: string;
  let otherKey: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
    gw = await startGateway();
    const deps = gw.gateway.deps;
    otherWs = await insertWorkspace(gw, deps.runtime.current.defaultOrganisationId, 'team-b');
    otherKey = await insertKey(gw, {
      organisationId: deps.runtime.current.defaultOrganisationId,
      workspaceId: otherWs,
      type: 'workspace-service',
    });
    await deps.runtime.changed();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('creates an integration with its default provider; @slug works as header, config provider and model prefix', async () => {
    const created = await admin('POST', '/v1/integrations', {
      name: 'OpenAI prod',
      slug: 'openai-prod-int',
      ai_provider_id: 'openai',
      key: KEY,
      configurations: { custom_host: fake.url, compat_project: 'p1' },
      default_provider_slug: 'openai-prod',
      pricing_adjustments: { multiplier: 1.2 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'integration',
      slug: 'openai-prod-int',
      ai_provider_id: 'openai',
      key_hint: 'sk-…6789',
      workspace_id: null,
      pricing_adjustments: { multiplier: 1.2 },
      status: 'active',
      secret_mappings: [],
    });
    expect(JSON.stringify(created.body)).not.toContain(KEY);
    const row = await gw.gateway.deps.store.db
      .selectFrom('integrations')
      .select(['key_ciphertext'])
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(isSealed(row.key_ciphertext)).toBe(true);

    const provider = await admin('GET', '/v1/providers/openai-prod');
    expect(provider.body).toMatchObject({ slug: 'openai-prod', provider: 'openai', integration_id: created.body.id });

    const viaPrefix = await gw
      .openai({}, { apiKey: 'unused' })
      .chat.completions.create({ model: '@openai-prod/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(viaPrefix.object).toBe('chat.completion');
    const last = fake.requests.at(-1)!;
    expect(last.body.model).toBe('gpt-4o');
    expect(last.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(last.headers['openai-project']).toBe('p1');
    await gw
      .openai({ 'x-gateway-provider': '@openai-prod' }, { apiKey: 'unused' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    await gw
      .openai({ 'x-gateway-config': JSON.stringify({ provider: '@openai-prod' }) }, { apiKey: 'unused' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

    // A new key reaches the data plane after the update.
    const updated = await admin('PUT', `/v1/integrations/${created.body.id}`, { key: 'sk-other-key-abcdefgh' });
    expect(updated.body.key_hint).toBe('sk-…efgh');
    const refused = await gw
      .openai({}, { apiKey: 'unused' })
      .chat.completions.create({ model: '@openai-prod/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: { status: number }) => e);
    expect((refused as { status: number }).status).toBe(401);
    await admin('PUT', `/v1/integrations/${created.body.id}`, { key: KEY });
    const db = gw.gateway.deps.store.db;
    await expect.poll(async () => (await db.selectFrom('request_logs').select('id').execute()).length).toBeGreaterThanOrEqual(4);
    for (const table of ['audit_logs', 'request_logs', 'integrations', 'virtual_keys'] as const) {
      expect(JSON.stringify(await db.selectFrom(table).selectAll().execute()), table).not.toContain(KEY);
    }
    expect(await (await gw.fetch('/openapi.json')).text()).not.toContain(KEY);
  });

  it('integration-models: an allow list refuses other models; a custom host must be a valid, public URL', async () => {
    const i = await admin('POST', '/v1/integrations', {
      name: 'models',
      ai_provider_id: 'openai',
      key: KEY,
      configurations: { custom_host: fake.url },
      default_provider_slug: 'openai-models',
    });
    expect(i.status).toBe(201);
    const put = await admin('PUT', `/v1/integrations/${i.body.id}/integration-models`, {
      allow_all_models: false,
      models: [
        { slug: 'gpt-4o', enabled: true },
        { slug: 'gpt-4o-mini', enabled: false },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await admin('GET', `/v1/integrations/${i.body.id}/integration-models`)).body).toMatchObject({
      allow_all_models: false,
      total: 2,
    });
    const ok = await callAs(gw, gw.adminKey, 'POST', '/v1/chat/completions', {
      model: '@openai-models/gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(ok.status).toBe(200);
    const off = await callAs(gw, gw.adminKey, 'POST', '/v1/chat/completions', {
      model: '@openai-models/gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(off.status).toBe(400);
    expect(off.body.error).toMatchObject({ code: 'invalid_request', param: 'model', message: expect.stringContaining('gpt-4o-mini') });

    for (const configurations of [
      {},
      { custom_host: 'not a url' },
      { custom_host: 'http://10.1.2.3/v1' },
      { custom_host: fake.url, other: 1 },
    ]) {
      const bad = await admin('PUT', `/v1/integrations/${i.body.id}/integration-models`, {
        models: [{ slug: 'm', enabled: true, configurations }],
      });
      expect(bad.status, JSON.stringify(configurations)).toBe(400);
      expect(bad.body.error.param).toBe('models[0].configurations.custom_host');
    }
  });

  it('refuses bad input with the error shape and creates nothing on a slug clash', async () => {
    const count = async () => (await admin('GET', '/v1/integrations?page_size=100')).body.total as number;
    const before = await count();
    const cases: Array<[unknown, number, string]> = [
      [{ name: 'x', ai_provider_id: 'no-such-provider' }, 400, 'ai_provider_id'],
      [{ name: 'x', ai_provider_id: 'openai', configurations: { cloud1_region: 'us-east-1' } }, 400, 'configurations.cloud1_region'],
      [{ name: 'x', ai_provider_id: 'bedrock', configurations: { cloud1_region: 'not a region' } }, 400, 'configurations.cloud1_region'],
      [
        { name: 'x', ai_provider_id: 'openai', configurations: { custom_host: 'http://169.254.169.254/' } },
        400,
        'configurations.custom_host',
      ],
      [{ name: 'x', ai_provider_id: 'openai', pricing_adjustments: { multiplier: -1 } }, 400, 'pricing_adjustments.multiplier'],
      [
        {
          name: 'x',
          ai_provider_id: 'openai',
          secret_mappings: [{ target_field: 'key', secret_reference_id: 'r1', value_format: 'json' }],
        },
        400,
        'secret_mappings[0].secret_key',
      ],
      [
        {
          name: 'x',
          ai_provider_id: 'openai',
          secret_mappings: [{ target_field: 'configurations.cloud1_region', secret_reference_id: 'r1' }],
        },
        400,
        'secret_mappings[0].target_field',
      ],
      [{ name: 'x', ai_provider_id: 'openai', surprise: true }, 400, 'surprise'],
      // The default provider's slug is taken (first test): 409, and the integration is not created either.
      [{ name: 'x', slug: 'fresh-slug', ai_provider_id: 'openai', default_provider_slug: 'openai-prod' }, 409, 'default_provider_slug'],
      [{ name: 'x', slug: 'openai-prod-int', ai_provider_id: 'openai', create_default_provider: false }, 409, 'slug'],
    ];
    for (const [body, status, param] of cases) {
      const res = await admin('POST', '/v1/integrations', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.param, JSON.stringify(res.body)).toContain(param);
      expect(res.body.error.message).not.toBe('');
    }
    // A configuration of a fixed set names the set.
    const deployment = await admin('POST', '/v1/integrations', {
      name: 'x',
      ai_provider_id: 'azure-ai',
      configurations: { cloud3_deployment_type: 'dedicated' },
    });
    expect(deployment.status).toBe(400);
    expect(deployment.body.error).toMatchObject({
      param: 'configurations.cloud3_deployment_type',
      message: 'configurations.cloud3_deployment_type must be equal to one of the allowed values (serverless, managed).',
    });
    expect(await count()).toBe(before);
    expect((await admin('GET', '/v1/integrations/fresh-slug')).status).toBe(404);

    // A mapping must name an existing secret reference (docs/secrets.md).
    const unknownRef = await admin('POST', '/v1/integrations', {
      name: 'mapped',
      ai_provider_id: 'bedrock',
      create_default_provider: false,
      secret_mappings: [{ target_field: 'configurations.cloud1_access_key_id', secret_reference_id: 'ref-1' }],
    });
    expect(unknownRef.status).toBe(400);
    expect(unknownRef.body.error.param).toBe('secret_mappings[0].secret_reference_id');
    const mapped = await admin('POST', '/v1/integrations', {
      name: 'mapped',
      ai_provider_id: 'bedrock',
      create_default_provider: false,
      configurations: { cloud1_region: 'us-east-1', cloud1_secret_access_key: 'aws-secret-value-1234' },
    });
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(201);
    expect(mapped.body.configurations).toEqual({ cloud1_region: 'us-east-1', cloud1_secret_access_key: 'aws…1234' });
    expect(JSON.stringify(await admin('GET', `/v1/integrations/${mapped.body.id}`))).not.toContain('aws-secret-value-1234');
  });

  it('an organisation integration is shared per workspace; workspace principals cannot write it', async () => {
    const i = await admin('POST', '/v1/integrations', {
      name: 'shared',
      slug: 'shared-int',
      ai_provider_id: 'openai',
      key: KEY,
      configurations: { custom_host: fake.url },
      create_default_provider: false,
    });
    expect(i.status).toBe(201);
    const as = (method: string, path: string, body?: unknown) => callAs(gw, otherKey, method, path, body);
    expect((await as('GET', `/v1/integrations/${i.body.id}`)).status).toBe(404);
    expect((await as('POST', '/v1/providers', { name: 'p', slug: 'team-b-openai', integration_id: i.body.id })).status).toBe(404);
    const shared = await admin('PUT', `/v1/integrations/${i.body.id}/workspaces`, { workspaces: [{ id: otherWs, enabled: true }] });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect(shared.body.data).toEqual([{ id: otherWs, enabled: true }]);
    expect((await as('GET', `/v1/integrations/${i.body.id}`)).status).toBe(200);
    expect((await as('PUT', `/v1/integrations/${i.body.id}`, { name: 'mine' })).status).toBe(403);
    const p = await as('POST', '/v1/providers', { name: 'p', slug: 'team-b-openai', integration_id: i.body.id });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const chat = await as('POST', '/v1/chat/completions', { model: '@team-b-openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    // Unsharing takes the provider off the data plane.
    await admin('PUT', `/v1/integrations/${i.body.id}/workspaces`, { workspaces: [{ id: otherWs, enabled: false }] });
    const after = await as('POST', '/v1/chat/completions', { model: '@team-b-openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(after.status).toBe(404);
    expect((await as('PUT', `/v1/integrations/${i.body.id}/workspaces`, { workspaces: [{ id: 'nope', enabled: true }] })).status).toBe(404);
  });
});
