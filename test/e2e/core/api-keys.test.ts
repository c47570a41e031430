import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway({ env: { API_KEY_PREFIX: 'acme-' } });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const chatWith = (key: string) =>
  fetch(gw.url + '/v1/chat/completions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': key,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': fake.url,
      authorization: 'Bearer k',
    },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  });

async function createKey(body: Record<string, unknown>, key?: string) {
  const res = await gw.fetch('/v1/api-keys', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: key ? { 'x-gateway-api-key': key } : {},
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('gateway API keys', () => {
  it('creates a key (value shown once, with API_KEY_PREFIX), which then authenticates', async () => {
    const { status, body } = await createKey({ name: 'svc', type: 'workspace-service', scopes: ['completions.write'] });
    expect(status).toBe(201);
    expect(body.key).toMatch(/^acme-/);
    expect(body).toMatchObject({ name: 'svc', type: 'workspace-service', status: 'active', scopes: ['completions.write'] });
    expect((await chatWith(body.key)).status).toBe(200);
    const read = (await (await gw.fetch(`/v1/api-keys/${body.id}`)).json()) as any;
    expect(read.key).toBeUndefined();
    expect(read.key_hint).toMatch(/^acme-.{4}$/);
    const list = (await (await gw.fetch('/v1/api-keys?page_size=100')).json()) as any;
    expect(list.total).toBeGreaterThanOrEqual(2);
    expect(list.data.every((k: Record<string, unknown>) => k.key === undefined && k.key_hash === undefined)).toBe(true);
  });

  it('deleting a key makes it fail at once', async () => {
    const { body } = await createKey({ name: 'temp' });
    expect((await chatWith(body.key)).status).toBe(200);
    const del = await gw.fetch(`/v1/api-keys/${body.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    const after = await chatWith(body.key);
    expect(after.status).toBe(401);
    expect(((await after.json()) as any).error.code).toBe('invalid_api_key');
    expect((await gw.fetch(`/v1/api-keys/${body.id}`)).status).toBe(404);
  });

  it('an expired key fails, and updating expires_at takes effect at once', async () => {
    const { body } = await createKey({ name: 'exp', expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await chatWith(body.key)).status).toBe(200);
    const put = await gw.fetch(`/v1/api-keys/${body.id}`, {
      method: 'PUT',
      body: JSON.stringify({ expires_at: new Date(Date.now() - 1000).toISOString() }),
    });
    expect(put.status).toBe(200);
    const res = await chatWith(body.key);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toContain('expired');
  });

  it('scopes and workspaces are enforced (403)', async () => {
    const member = (await (
      await gw.fetch('/v1/users', {
        method: 'POST',
        body: JSON.stringify({ email: 'key-user@example.com', workspaces: [{ id: 'default', role: 'member' }] }),
      })
    ).json()) as any;
    const { body: user } = await createKey({ name: 'user', type: 'workspace-user', user_id: member.id });
    const denied = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'x' }),
      headers: { 'x-gateway-api-key': user.key },
    });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as any).error.code).toBe('forbidden');
    const { body: ws } = await createKey({ name: 'ws', type: 'workspace-service' });
    const orgKey = await createKey({ name: 'org', type: 'organisation-service' }, ws.key);
    expect(orgKey.status).toBe(403);
    const { body: noChat } = await createKey({ name: 'ro', scopes: ['configs.read'] });
    expect((await chatWith(noChat.key)).status).toBe(403);
  });

  it('rotation issues a new value; the old one stays valid for the transition period', async () => {
    const { body } = await createKey({ name: 'rot' });
    const rotated = (await (
      await gw.fetch(`/v1/api-keys/${body.id}/rotate`, { method: 'POST', body: JSON.stringify({ key_transition_period_ms: 1800000 }) })
    ).json()) as any;
    expect(rotated.key).not.toBe(body.key);
    expect((await chatWith(rotated.key)).status).toBe(200);
    expect((await chatWith(body.key)).status).toBe(200);
    expect(rotated.metadata).toEqual({});
    const tooShort = await gw.fetch(`/v1/api-keys/${body.id}/rotate`, {
      method: 'POST',
      body: JSON.stringify({ key_transition_period_ms: 1000 }),
    });
    expect(tooShort.status).toBe(400);
  });

  it('bad input gets 400 in the error shape', async () => {
    const cases = [
      {},
      { name: '' },
      { name: 'x', type: 'root' },
      { name: 'x', scopes: 'all' },
      { name: 'x', extra: 1 },
      { name: 'x', expires_at: 'tomorrow' },
    ];
    for (const c of cases) {
      const { status, body } = await createKey(c);
      expect(status, JSON.stringify(c)).toBe(400);
      expect(body.error.code).toBe('invalid_request');
      expect(typeof body.error.message).toBe('string');
    }
    expect((await gw.fetch('/v1/api-keys/not-a-key')).status).toBe(404);
  });
});

describe('health, metrics and the OpenAPI document', () => {
  it('serves /health without a key and Prometheus text at /metrics', async () => {
    expect((await fetch(gw.url + '/health')).status).toBe(200);
    await chatWith(gw.adminKey);
    const text = await (await fetch(gw.url + '/metrics')).text();
    expect(text).toContain('gateway_requests_total{endpoint="chat",provider="openai",model="m",status="200"}');
    expect(text).toContain('gateway_request_duration_seconds_bucket');
    expect(text).toContain('gateway_upstream_duration_seconds_bucket');
  });

  it('publishes the OpenAPI document', async () => {
    const doc = (await (await fetch(gw.url + '/openapi.json')).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/api-keys', '/v1/configs', '/v1/models']));
  });

  it('logs each request (written in batches) and lists them', async () => {
    const res = await chatWith(gw.adminKey);
    const trace = res.headers.get('x-gateway-trace-id');
    const logs = (await (await gw.fetch(`/v1/logs?trace_id=${trace}`)).json()) as any;
    expect(logs.total).toBe(1);
    expect(logs.data[0]).toMatchObject({ endpoint: 'chat', provider: 'openai', status: 200, trace_id: trace });
    expect(logs.data[0].total_tokens).toBeGreaterThan(0);
  });
});
