import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

type Json = Record<string, any>;

describe('inline usage_limits on API keys and workspaces', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await gw.fetch(path, {
      method,
      headers: key ? { 'x-gateway-api-key': key } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const expectError = (r: { status: number; body: Json }, status: number, code: string, param?: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (param !== undefined) expect(r.body.error.param).toBe(param);
  };
  const chat = (key: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': key,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk-good',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const newKey = async (body: Json, key?: string) => {
    const r = await call('POST', '/v1/api-keys', { name: 'inline', ...body }, key);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('a key created with usage_limits is held to them; the policy is visible, managed by the key', async () => {
    const k = await newKey({ usage_limits: [{ type: 'requests', credit_limit: 2, periodic_reset: 'monthly' }] });
    expect(k.usage_limits).toHaveLength(1);
    const d = new Date();
    expect(k.usage_limits[0]).toMatchObject({
      type: 'requests',
      credit_limit: 2,
      periodic_reset: 'monthly',
      periodic_reset_days: null,
      alert_threshold: null,
      last_reset_at: null,
      next_usage_reset_at: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString(),
    });
    const other = await newKey({});
    expect(other.usage_limits).toEqual([]);

    expect((await chat(k.key)).status).toBe(200);
    expect((await chat(k.key)).status).toBe(200);
    const refused = await chat(k.key);
    expect(refused.status).toBe(429);
    const err = (await refused.json()) as Json;
    expect(err.error.code).toBe('usage_limit_exceeded');
    expect(err.error.message).toContain(k.usage_limits[0].policy_id);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await chat(other.key)).status).toBe(200);

    const policy = await call('GET', `/v1/policies/usage-limits/${k.usage_limits[0].policy_id}`);
    expect(policy.body).toMatchObject({
      managed_by: { type: 'api_key', id: k.id },
      conditions: [{ key: 'api_key', value: k.id }],
      group_by: [{ key: 'api_key' }],
      credit_limit: 2,
    });
    const entities = await call('GET', `/v1/policies/usage-limits/${k.usage_limits[0].policy_id}/entities`);
    expect(entities.body.data).toEqual([expect.objectContaining({ group: { api_key: k.id }, used: 2, status: 'exhausted' })]);
    expect((await call('GET', `/v1/api-keys/${k.id}`)).body.usage_limits).toEqual(k.usage_limits);
    const listed = (await call('GET', '/v1/api-keys?page_size=100')).body.data.find((x: Json) => x.id === k.id);
    expect(listed.usage_limits).toEqual(k.usage_limits);
  });

  it('an update replaces the set (the old policies archived), [] removes it, revoking the key archives them', async () => {
    const k = await newKey({
      usage_limits: [
        { type: 'requests', credit_limit: 1 },
        { type: 'tokens', credit_limit: 1000, periodic_reset_days: 7 },
      ],
    });
    expect(k.usage_limits.map((l: Json) => l.type)).toEqual(['requests', 'tokens']);
    expect((await chat(k.key)).status).toBe(200);
    expect((await chat(k.key)).status).toBe(429);
    const u = await call('PUT', `/v1/api-keys/${k.id}`, { usage_limits: [{ type: 'requests', credit_limit: 3, alert_threshold: 2 }] });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body.usage_limits).toHaveLength(1);
    expect(u.body.usage_limits[0]).toMatchObject({ credit_limit: 3, alert_threshold: 2 });
    for (const old of k.usage_limits)
      expect((await call('GET', `/v1/policies/usage-limits/${old.policy_id}?status=archived`)).body.status).toBe('archived');
    // The new policy counts from zero.
    expect((await chat(k.key)).status).toBe(200);
    const cleared = await call('PUT', `/v1/api-keys/${k.id}`, { usage_limits: [] });
    expect(cleared.body.usage_limits).toEqual([]);
    expect((await call('GET', `/v1/policies/usage-limits/${u.body.usage_limits[0].policy_id}?status=archived`)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await chat(k.key)).status).toBe(200);

    const r = await newKey({ usage_limits: [{ type: 'cost', credit_limit: 5 }] });
    expect((await call('DELETE', `/v1/api-keys/${r.id}`)).status).toBe(200);
    expect((await call('GET', `/v1/policies/usage-limits/${r.usage_limits[0].policy_id}?status=archived`)).body.status).toBe('archived');
  });

  it('a workspace created with usage_limits holds every key of it to them', async () => {
    const ws = await call('POST', '/v1/workspaces', {
      name: 'Inline budgets',
      usage_limits: [{ type: 'requests', credit_limit: 2, periodic_reset: 'weekly' }],
    });
    expect(ws.status, JSON.stringify(ws.body)).toBe(201);
    expect(ws.body.usage_limits).toHaveLength(1);
    const a = await newKey({ workspace_id: ws.body.id });
    const b = await newKey({ workspace_id: ws.body.id });
    expect((await chat(a.key)).status).toBe(200);
    expect((await chat(b.key)).status).toBe(200);
    expect((await chat(a.key)).status).toBe(429);
    const policy = await call('GET', `/v1/policies/usage-limits/${ws.body.usage_limits[0].policy_id}`);
    expect(policy.body).toMatchObject({
      managed_by: { type: 'workspace', id: ws.body.id },
      conditions: [{ key: 'workspace_id', value: ws.body.id }],
    });
    const raised = await call('PUT', `/v1/workspaces/${ws.body.id}`, {
      usage_limits: [{ type: 'requests', credit_limit: 10, periodic_reset: 'weekly' }],
    });
    expect(raised.body.usage_limits[0].credit_limit).toBe(10);
    expect((await chat(a.key)).status).toBe(200);
    expect((await call('GET', `/v1/workspaces/${ws.body.id}`)).body.usage_limits).toEqual(raised.body.usage_limits);
  });

  it('refuses bad inline limits with 400 naming the entry, and writes nothing', async () => {
    const before = (await call('GET', '/v1/api-keys?page_size=100')).body.total;
    expectError(
      await call('POST', '/v1/api-keys', {
        name: 'x',
        usage_limits: [{ type: 'cost', credit_limit: 5, periodic_reset: 'weekly', periodic_reset_days: 7 }],
      }),
      400,
      'invalid_request',
      'body.usage_limits[0].periodic_reset',
    );
    expectError(
      await call('POST', '/v1/api-keys', {
        name: 'x',
        usage_limits: [
          { type: 'cost', credit_limit: 5 },
          { type: 'cost', credit_limit: 5, alert_threshold: 5 },
        ],
      }),
      400,
      'invalid_request',
      'body.usage_limits[1].alert_threshold',
    );
    expectError(
      await call('POST', '/v1/api-keys', { name: 'x', usage_limits: [{ type: 'cost', credit_limit: 0 }] }),
      400,
      'invalid_request',
    );
    expectError(
      await call('POST', '/v1/api-keys', { name: 'x', usage_limits: [{ type: 'cost', credit_limit: 1, conditions: [] }] }),
      400,
      'invalid_request',
    );
    expectError(
      await call('POST', '/v1/api-keys', {
        name: 'x',
        usage_limits: [{ type: 'cost', credit_limit: 1, next_usage_reset_at: 'tomorrow-ish' }],
      }),
      400,
      'invalid_request',
      'body.usage_limits[0].next_usage_reset_at',
    );
    expectError(
      await call('POST', '/v1/api-keys', { name: 'x', type: 'organisation-service', usage_limits: [{ type: 'cost', credit_limit: 1 }] }),
      400,
      'invalid_request',
      'usage_limits',
    );
    expect((await call('GET', '/v1/api-keys?page_size=100')).body.total).toBe(before);
  });

  it('setting usage_limits needs usage_limits.write: a key without it gets 403 and nothing is created', async () => {
    const limited = await newKey({ scopes: ['api_keys.write', 'api_keys.read'] });
    const before = (await call('GET', '/v1/api-keys?page_size=100')).body.total;
    const r = await call(
      'POST',
      '/v1/api-keys',
      { name: 'self-budget', scopes: ['api_keys.read'], usage_limits: [{ type: 'cost', credit_limit: 1_000_000 }] },
      limited.key,
    );
    expectError(r, 403, 'forbidden');
    expect(r.body.error.message).toContain('usage_limits.write');
    expect((await call('GET', '/v1/api-keys?page_size=100')).body.total).toBe(before);
    expect((await call('POST', '/v1/api-keys', { name: 'no-budget', scopes: ['api_keys.read'] }, limited.key)).status).toBe(201);
  });
});
