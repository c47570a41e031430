import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { uuid } from '../../../src/foundation/lib/ids.js';

const BASE = '/v1/policies/rate-limits';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Json = Record<string, any>;

describe.each(['sqlite', 'postgres'] as const)('rate-limits policy API on %s', (store) => {
  let gw: TestGateway;
  let defaultWs: string;
  let secondWs: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await gw.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
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
    expect(typeof r.body.error.message).toBe('string');
    if (param !== undefined) expect(r.body.error.param).toBe(param);
  };

  beforeAll(async () => {
    gw = await startGateway({ store });
    const deps = gw.gateway.deps;
    defaultWs = deps.runtime.current.defaultWorkspaceId;
    secondWs = uuid();
    const now = Date.now();
    await deps.store.db
      .insertInto('workspaces')
      .values({
        id: secondWs,
        organisation_id: deps.runtime.current.defaultOrganisationId,
        name: 'Team B',
        slug: 'team-b',
        status: 'active',
        settings: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await deps.runtime.changed();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('creates a policy and answers exactly the specified object', async () => {
    const p = await create({
      name: 'chat per key',
      type: 'requests',
      unit: 'rpm',
      value: 50,
      conditions: [
        { key: 'endpoint_type', value: 'chat' },
        { key: 'metadata._user', value: 'ann' },
      ],
      group_by: [{ key: 'api_key' }, { key: 'metadata._user' }],
    });
    expect(Object.keys(p).sort()).toEqual([
      'conditions',
      'created_at',
      'group_by',
      'id',
      'last_updated_at',
      'name',
      'object',
      'organisation_id',
      'status',
      'type',
      'unit',
      'value',
      'workspace_id',
    ]);
    expect(p).toMatchObject({
      object: 'policy_rate_limits',
      name: 'chat per key',
      type: 'requests',
      unit: 'rpm',
      value: 50,
      status: 'active',
      workspace_id: defaultWs,
      organisation_id: gw.gateway.deps.runtime.current.defaultOrganisationId,
    });
    expect(p.conditions).toEqual([
      { key: 'endpoint_type', value: 'chat' },
      { key: 'metadata._user', value: 'ann' },
    ]);
    expect(p.group_by).toEqual([{ key: 'api_key' }, { key: 'metadata._user' }]);
    expect(p.id).toMatch(UUID);
    expect(p.created_at).toMatch(ISO);
    expect(p.last_updated_at).toBe(p.created_at);
    const got = await call('GET', `${BASE}/${p.id}`);
    expect(got).toEqual({ status: 200, body: p });
  });

  it('defaults name, conditions and group_by; resolves workspace_id given as a slug; accepts rpw', async () => {
    const p = await create({ type: 'tokens', unit: 'rpw', value: 1000, workspace_id: 'team-b' });
    expect(p).toMatchObject({ name: null, conditions: [], group_by: [], workspace_id: secondWs, type: 'tokens', unit: 'rpw' });
  });

  it('updates with PUT (only the given fields) and moves last_updated_at', async () => {
    const p = await create({ name: 'x', type: 'requests', unit: 'rph', value: 5 });
    await new Promise((r) => setTimeout(r, 5));
    const r = await call('PUT', `${BASE}/${p.id}`, { value: 7, conditions: [{ key: 'model', value: 'gpt-4o' }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: p.id,
      object: 'policy_rate_limits',
      name: 'x',
      unit: 'rph',
      value: 7,
      conditions: [{ key: 'model', value: 'gpt-4o' }],
      created_at: p.created_at,
    });
    expect(Date.parse(r.body.last_updated_at)).toBeGreaterThan(Date.parse(p.created_at));
    expect((await call('GET', `${BASE}/${p.id}`)).body.value).toBe(7);
  });

  it('DELETE archives: gone by default, readable with status=archived, listed as archived, no longer writable', async () => {
    const p = await create({ type: 'requests', unit: 'rpd', value: 3 });
    const del = await call('DELETE', `${BASE}/${p.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: p.id, status: 'archived', object: 'policy_rate_limits' });
    expectError(await call('GET', `${BASE}/${p.id}`), 404, 'not_found');
    expect((await call('GET', `${BASE}/${p.id}?status=archived`)).body).toMatchObject({ id: p.id, status: 'archived' });
    expectError(
      await call('GET', `${BASE}/${(await create({ type: 'requests', unit: 'rpd', value: 3 })).id}?status=archived`),
      404,
      'not_found',
    );
    const archived = await call('GET', `${BASE}?status=archived`);
    expect(archived.body.data.map((x: Json) => x.id)).toContain(p.id);
    expect((await call('GET', BASE)).body.data.map((x: Json) => x.id)).not.toContain(p.id);
    expectError(await call('PUT', `${BASE}/${p.id}`, { value: 9 }), 409, 'conflict');
    expectError(await call('DELETE', `${BASE}/${p.id}`), 409, 'conflict');
  });

  it('unknown ids are 404; malformed ids are 400', async () => {
    const unknown = uuid();
    expectError(await call('GET', `${BASE}/${unknown}`), 404, 'not_found');
    expectError(await call('PUT', `${BASE}/${unknown}`, { value: 1 }), 404, 'not_found');
    expectError(await call('DELETE', `${BASE}/${unknown}`), 404, 'not_found');
    expectError(await call('GET', `${BASE}/not-a-uuid`), 400, 'invalid_request', 'params.id');
  });

  it('lists with filters (workspace id or slug, status, type, unit) and paging; items omit object', async () => {
    const mine = [
      await create({ type: 'requests', unit: 'rpm', value: 1, workspace_id: secondWs }),
      await create({ type: 'tokens', unit: 'rpm', value: 2, workspace_id: secondWs }),
      await create({ type: 'tokens', unit: 'rph', value: 3, workspace_id: secondWs }),
    ];
    const list = async (q: string) => {
      const r = await call('GET', `${BASE}?${q}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['data', 'object', 'total']);
      expect(r.body.object).toBe('list');
      for (const item of r.body.data) expect(item.object).toBeUndefined();
      return r.body;
    };
    const inB = await list(`workspace_id=${secondWs}`);
    const bySlug = await list('workspace_id=team-b');
    expect(bySlug).toEqual(inB);
    expect(inB.data.every((x: Json) => x.workspace_id === secondWs)).toBe(true);
    for (const p of mine) expect(inB.data.map((x: Json) => x.id)).toContain(p.id);
    const tokensRpm = await list('workspace_id=team-b&type=tokens&unit=rpm');
    expect(tokensRpm.data.map((x: Json) => x.id)).toEqual([mine[1]!.id]);
    expect(tokensRpm.total).toBe(1);
    const tokens = await list('workspace_id=team-b&type=tokens');
    expect(tokens.data.every((x: Json) => x.type === 'tokens')).toBe(true);
    const page0 = await list('workspace_id=team-b&page_size=1&current_page=0');
    const page1 = await list('workspace_id=team-b&page_size=1&current_page=1');
    expect(page0.data).toHaveLength(1);
    expect(page1.data).toHaveLength(1);
    expect(page0.data[0].id).not.toBe(page1.data[0].id);
    expect(page0.total).toBe(inB.total);
    const all = await list('');
    expect(all.total).toBeGreaterThan(inB.total);
    expect(all.data.some((x: Json) => x.workspace_id === defaultWs)).toBe(true);
  });

  it('refuses bad list queries with 400 and unknown workspaces with 404', async () => {
    expectError(await call('GET', `${BASE}?page_size=-1`), 400, 'invalid_request', 'querystring.page_size');
    expectError(await call('GET', `${BASE}?current_page=abc`), 400, 'invalid_request');
    expectError(await call('GET', `${BASE}?unit=rps`), 400, 'invalid_request');
    expectError(await call('GET', `${BASE}?status=deleted`), 400, 'invalid_request');
    expectError(await call('GET', `${BASE}?type=bytes`), 400, 'invalid_request');
    expectError(await call('GET', `${BASE}?workspace_id=nope`), 404, 'not_found', 'workspace_id');
  });

  it.each([
    [{ unit: 'rpm', value: 1 }, 'body.type'],
    [{ type: 'requests', value: 1 }, 'body.unit'],
    [{ type: 'requests', unit: 'rpm' }, 'body.value'],
    [{ type: 'calls', unit: 'rpm', value: 1 }, 'body.type'],
    [{ type: 'requests', unit: 'rps', value: 1 }, 'body.unit'],
    [{ type: 'requests', unit: 'rpm', value: -1 }, 'body.value'],
    [{ type: 'requests', unit: 'rpm', value: 1.5 }, 'body.value'],
    [{ type: 'requests', unit: 'rpm', value: '10' }, 'body.value'],
    [{ type: 'requests', unit: 'rpm', value: 1, colour: 'red' }, 'body.colour'],
    [{ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'user', value: 'x' }] }, 'body.conditions[0].key'],
    [
      {
        type: 'requests',
        unit: 'rpm',
        value: 1,
        conditions: [
          { key: 'model', value: 'a' },
          { key: 'endpoint_type', value: 'telepathy' },
        ],
      },
      'body.conditions[1].value',
    ],
    [{ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model' }] }, 'body.conditions.0.value'],
    [{ type: 'requests', unit: 'rpm', value: 1, group_by: [{ key: 'user' }] }, 'body.group_by[0].key'],
    [{ type: 'requests', unit: 'rpm', value: 1, group_by: [{ key: 'api_key' }, { key: 'api_key' }] }, 'body.group_by[1].key'],
  ])('refuses a bad body %j with 400 naming %s', async (body, param) => {
    expectError(await call('POST', BASE, body), 400, 'invalid_request', param);
  });

  it('refuses a bad update, an unknown workspace and a key without the scope', async () => {
    const p = await create({ type: 'requests', unit: 'rpm', value: 1 });
    expectError(await call('PUT', `${BASE}/${p.id}`, {}), 400, 'invalid_request');
    expectError(await call('PUT', `${BASE}/${p.id}`, { unit: 'rpy' }), 400, 'invalid_request', 'body.unit');
    expectError(await call('PUT', `${BASE}/${p.id}`, { status: 'archived' }), 400, 'invalid_request', 'body.status');
    expectError(
      await call('POST', BASE, { type: 'requests', unit: 'rpm', value: 1, workspace_id: 'nowhere' }),
      404,
      'not_found',
      'workspace_id',
    );
    const member = await call('POST', '/v1/users', { email: 'policy-user@example.com', workspaces: [{ id: 'default', role: 'member' }] });
    const key = await call('POST', '/v1/api-keys', { name: 'user', type: 'workspace-user', user_id: member.body.id });
    expect(key.status).toBe(201);
    expectError(await call('GET', BASE, undefined, { 'x-gateway-api-key': key.body.key }), 403, 'forbidden');
    expectError(
      await call('POST', BASE, { type: 'requests', unit: 'rpm', value: 1 }, { 'x-gateway-api-key': key.body.key }),
      403,
      'forbidden',
    );
    expectError(await call('GET', BASE, undefined, { 'x-gateway-api-key': 'wrong' }), 401, 'invalid_api_key');
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = (await (await gw.fetch('/openapi.json')).json()) as Json;
    expect(Object.keys(doc.paths['/v1/policies/rate-limits'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/v1/policies/rate-limits/{id}'])).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    expect(doc.paths['/v1/policies/rate-limits'].post.tags).toEqual(['rate-limit policies']);
  });
});
