import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { uuid } from '../../../src/foundation/lib/ids.js';

const BASE = '/v1/policies/usage-limits';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Json = Record<string, any>;

describe.each(['sqlite', 'postgres'] as const)('usage-limits policy API on %s', (store) => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let defaultWs: string;
  let otherOrgWs: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await gw.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  const create = async (body: Json) => {
    const r = await call('POST', BASE, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const expectError = (r: { status: number; body: Json }, status: number, code: string, param?: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(r.body.error.code).toBe(code);
    if (param !== undefined) expect(r.body.error.param).toBe(param);
  };
  const chat = (metadata: Record<string, string>) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk-good',
        'x-gateway-metadata': JSON.stringify(metadata),
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    gw = await startGateway({ store });
    const deps = gw.gateway.deps;
    defaultWs = deps.runtime.current.defaultWorkspaceId;
    const other = await call('POST', '/v1/organisations', { name: 'Other', slug: `other-${uuid().slice(0, 8)}` });
    expect(other.status).toBe(201);
    const theirs = await call('POST', '/v1/workspaces', { name: 'Theirs', slug: 'theirs' }, { 'x-gateway-api-key': other.body.admin_key });
    expect(theirs.status).toBe(201);
    otherOrgWs = theirs.body.id;
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('creates a policy, normalises next_usage_reset_at to UTC midnight and reads it back', async () => {
    const p = await create({
      name: 'team budget',
      type: 'cost',
      credit_limit: 50,
      alert_threshold: 40,
      periodic_reset_days: 30,
      next_usage_reset_at: '2099-05-17T13:45:00+02:00',
      conditions: [{ key: 'model', value: 'gpt-4o' }],
      group_by: [{ key: 'api_key' }],
    });
    expect(Object.keys(p).sort()).toEqual([
      'alert_threshold',
      'conditions',
      'created_at',
      'credit_limit',
      'group_by',
      'id',
      'last_reset_at',
      'last_updated_at',
      'managed_by',
      'name',
      'next_usage_reset_at',
      'object',
      'organisation_id',
      'periodic_reset',
      'periodic_reset_days',
      'status',
      'type',
      'warnings',
      'workspace_id',
    ]);
    expect(p).toMatchObject({
      object: 'policy_usage_limits',
      type: 'cost',
      credit_limit: 50,
      alert_threshold: 40,
      periodic_reset: null,
      periodic_reset_days: 30,
      next_usage_reset_at: '2099-05-17T00:00:00.000Z',
      last_reset_at: null,
      status: 'active',
      workspace_id: defaultWs,
    });
    expect(p.created_at).toMatch(ISO);
    // `warnings` is advice of the create only (none here: no traffic).
    const { warnings, ...stored } = p;
    expect(warnings).toEqual([]);
    expect((await call('GET', `${BASE}/${p.id}`)).body).toEqual(stored);
  });

  it('a monthly policy shows the first of next month as its next reset; one without a schedule none', async () => {
    const m = await create({ type: 'requests', credit_limit: 10, periodic_reset: 'monthly' });
    const d = new Date();
    expect(m.next_usage_reset_at).toBe(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString());
    const never = await create({ type: 'tokens', credit_limit: 10 });
    expect(never.next_usage_reset_at).toBeNull();
  });

  it('refuses bad input with 400 naming the field', async () => {
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 5, periodic_reset: 'weekly', periodic_reset_days: 7 }),
      400,
      'invalid_request',
      'body.periodic_reset',
    );
    const both = await call('POST', BASE, { type: 'cost', credit_limit: 5, periodic_reset: 'weekly', periodic_reset_days: 7 });
    expect(both.body.error.message).toContain('periodic_reset_days');
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 5, alert_threshold: 6 }),
      400,
      'invalid_request',
      'body.alert_threshold',
    );
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 5, alert_threshold: 5 }),
      400,
      'invalid_request',
      'body.alert_threshold',
    );
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 0 }), 400, 'invalid_request');
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: -1 }), 400, 'invalid_request');
    expectError(await call('POST', BASE, { type: 'dollars', credit_limit: 1 }), 400, 'invalid_request');
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 1, periodic_reset_days: 366 }), 400, 'invalid_request');
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 1, periodic_reset_days: 0 }), 400, 'invalid_request');
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 1, periodic_reset: 'daily' }), 400, 'invalid_request');
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 1, next_usage_reset_at: 'tomorrow-ish' }),
      400,
      'invalid_request',
      'body.next_usage_reset_at',
    );
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 1, conditions: [{ key: 'colour', value: 'red' }] }),
      400,
      'invalid_request',
      'body.conditions[0].key',
    );
    expectError(
      await call('POST', BASE, { type: 'cost', credit_limit: 1, group_by: [{ key: 'colour' }] }),
      400,
      'invalid_request',
      'body.group_by[0].key',
    );
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 1, extra: true }), 400, 'invalid_request');
  });

  it('updates: one reset kind replaces the other, a threshold is checked against the stored limit', async () => {
    const p = await create({ type: 'tokens', credit_limit: 100, periodic_reset: 'weekly' });
    const u = await call('PUT', `${BASE}/${p.id}`, { periodic_reset_days: 3 });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    expect(u.body).toMatchObject({ periodic_reset: null, periodic_reset_days: 3 });
    expectError(await call('PUT', `${BASE}/${p.id}`, { alert_threshold: 100 }), 400, 'invalid_request', 'body.alert_threshold');
    expect((await call('PUT', `${BASE}/${p.id}`, { alert_threshold: 90, credit_limit: 1000 })).body).toMatchObject({
      alert_threshold: 90,
      credit_limit: 1000,
    });
    expectError(await call('PUT', `${BASE}/${p.id}`, {}), 400, 'invalid_request');
  });

  it('archives, lists by status and type with paging, 404 for another organisation', async () => {
    const a = await create({ type: 'requests', credit_limit: 3, name: 'to archive' });
    const del = await call('DELETE', `${BASE}/${a.id}`);
    expect(del.body).toMatchObject({ id: a.id, status: 'archived' });
    expectError(await call('GET', `${BASE}/${a.id}`), 404, 'not_found');
    expect((await call('GET', `${BASE}/${a.id}?status=archived`)).body.id).toBe(a.id);
    expectError(await call('PUT', `${BASE}/${a.id}`, { credit_limit: 4 }), 409, 'conflict');
    const archived = await call('GET', `${BASE}?status=archived`);
    expect(archived.body.data.map((x: Json) => x.id)).toContain(a.id);
    expect(archived.body.data[0].object).toBeUndefined();
    const page = await call('GET', `${BASE}?type=requests&page_size=1&current_page=0`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.total).toBeGreaterThanOrEqual(1);
    expect(page.body.data.every((x: Json) => x.type === 'requests')).toBe(true);
    expectError(await call('GET', `${BASE}?workspace_id=${otherOrgWs}`), 404, 'not_found');
    expectError(await call('POST', BASE, { type: 'cost', credit_limit: 1, workspace_id: otherOrgWs }), 404, 'not_found');
    expectError(await call('GET', `${BASE}/${uuid()}`), 404, 'not_found');
    expectError(await call('GET', `${BASE}/not-a-uuid`), 400, 'invalid_request');
  });

  it('enforces, lists entities per group and resets one group', async () => {
    const p = await create({
      type: 'requests',
      credit_limit: 2,
      periodic_reset: 'weekly',
      conditions: [{ key: 'metadata.case', value: 'entities' }],
      group_by: [{ key: 'metadata.user' }],
    });
    for (const user of ['ann', 'ann', 'bob']) expect((await chat({ case: 'entities', user })).status).toBe(200);
    const refused = await chat({ case: 'entities', user: 'ann' });
    expect(refused.status).toBe(429);
    const err = (await refused.json()) as Json;
    expect(err.error.code).toBe('usage_limit_exceeded');
    expect(err.error.message).toContain(p.id);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(7 * 86_400);
    const ents = await call('GET', `${BASE}/${p.id}/entities`);
    expect(ents.status).toBe(200);
    const byUser = Object.fromEntries(ents.body.data.map((e: Json) => [e.group['metadata.user'], e]));
    expect(ents.body.total).toBe(2);
    expect(byUser.ann).toMatchObject({ used: 2, credit_limit: 2, status: 'exhausted', next_reset_at: p.next_usage_reset_at });
    expect(byUser.bob).toMatchObject({ used: 1, status: 'active' });
    expectError(await call('POST', `${BASE}/${p.id}/entities/reset`, { group: { user: 'ann' } }), 400, 'invalid_request', 'body.group');
    const reset = await call('POST', `${BASE}/${p.id}/entities/reset`, { group: { 'metadata.user': 'ann' } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await chat({ case: 'entities', user: 'ann' })).status).toBe(200);
    const audit = await call('GET', '/v1/audit-logs?action=usage_limit_policy.reset');
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((e: Json) => e.resource_id)).toContain(p.id);
    // A new type is a new unit: the groups start from zero.
    expect((await call('PUT', `${BASE}/${p.id}`, { type: 'tokens', credit_limit: 1000 })).status).toBe(200);
    expect((await call('GET', `${BASE}/${p.id}/entities`)).body).toEqual({ object: 'list', data: [], total: 0 });
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as Json;
    expect(doc.paths[BASE].post).toBeDefined();
    expect(doc.paths[`${BASE}/{id}/entities`].get).toBeDefined();
    expect(doc.paths[`${BASE}/{id}/entities/reset`].post).toBeDefined();
  });
});
