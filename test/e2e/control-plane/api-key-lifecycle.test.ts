import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { uuid } from '../../../src/foundation/lib/ids.js';
import { nextBoundary } from '../../../src/control-plane/resources/api-keys/rotation-schedule.js';

type Json = Record<string, any>;
const HALF_HOUR = 1_800_000;
let gw: TestGateway;
let clock: FakeClock;

beforeAll(async () => {
  clock = new FakeClock(Date.now());
  gw = await startGateway({ clock });
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

/** Whether a key value authenticates (a read it holds by default). */
async function works(value: string): Promise<boolean> {
  const res = await call('GET', '/v1/configs', undefined, value);
  if (res.status !== 200 && res.status !== 401) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
  return res.status === 200;
}

function expectError(res: { status: number; body: Json }, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

async function auditOf(id: string, action: string): Promise<Json[]> {
  return (await call('GET', `/v1/audit-logs?action=${action}&page_size=100`)).body.data.filter((e: Json) => e.resource_id === id);
}

/** A workspace of the default organisation, added under the API (the workspaces resource is another issue's). */
async function addWorkspace(slug: string, settings: Json): Promise<string> {
  const deps = gw.gateway.deps;
  const id = uuid();
  await deps.store.db
    .insertInto('workspaces')
    .values({
      id,
      organisation_id: deps.runtime.current.defaultOrganisationId,
      name: slug,
      slug,
      status: 'active',
      settings: JSON.stringify(settings),
      created_at: 1,
      updated_at: 1,
    })
    .execute();
  await deps.runtime.changed();
  return id;
}

describe('manual rotation', () => {
  it('same id, a new value; both work until key_transition_expires_at, then only the new one (no reload needed); a second rotation meanwhile is 409', async () => {
    const k = await newKey({ name: 'rot' });
    expect(k).toMatchObject({ creation_mode: 'api', key_transition_expires_at: null, last_used_at: null });
    const before = clock.now();
    const rotated = await call('POST', `/v1/api-keys/${k.id}/rotate`, { key_transition_period_ms: 2 * HALF_HOUR });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({
      id: k.id,
      object: 'api_key',
      key: expect.any(String),
      key_transition_expires_at: new Date(before + 2 * HALF_HOUR).toISOString(),
    });
    expect(rotated.body.key).not.toBe(k.key);
    expect(await works(k.key)).toBe(true);
    expect(await works(rotated.body.key)).toBe(true);

    const again = await call('POST', `/v1/api-keys/${k.id}/rotate`, {});
    expectError(again, 409, 'conflict', 'id');
    expect(again.body.error.message).toContain(rotated.body.key_transition_expires_at);

    const version = gw.gateway.deps.runtime.current.version;
    clock.advance(2 * HALF_HOUR);
    expect(await works(k.key)).toBe(false);
    expect(await works(rotated.body.key)).toBe(true);
    expect(gw.gateway.deps.runtime.current.version).toBe(version);

    const third = await call('POST', `/v1/api-keys/${k.id}/rotate`);
    expect(third.status).toBe(200);
    expect(third.body.key_transition_expires_at).toBe(new Date(clock.now() + HALF_HOUR).toISOString());
    expect(await works(k.key)).toBe(false);
    expect(await works(rotated.body.key)).toBe(true);
    expect(await works(third.body.key)).toBe(true);
    const audit = await auditOf(k.id, 'api_key.rotate');
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actor: { type: 'api_key' }, details: { rotation_mode: 'manual' } });
    expect(JSON.stringify(audit)).not.toContain(third.body.key);
  });

  it("the key's policy sets the default transition", async () => {
    const k = await newKey({ name: 'policy-transition', rotation_policy: { key_transition_period_ms: 3 * HALF_HOUR } });
    const rotated = await call('POST', `/v1/api-keys/${k.id}/rotate`, {});
    expect(rotated.body.key_transition_expires_at).toBe(new Date(clock.now() + 3 * HALF_HOUR).toISOString());
  });

  it('bad input is 400 in the error shape; unknown ids and other workspaces are 404', async () => {
    const k = await newKey({ name: 'bad-input' });
    expectError(await call('POST', `/v1/api-keys/${k.id}/rotate`, { key_transition_period_ms: HALF_HOUR - 1 }), 400, 'invalid_request');
    expectError(await call('POST', `/v1/api-keys/${k.id}/rotate`, { key_transition_period_ms: 'long' }), 400, 'invalid_request');
    expectError(await call('POST', `/v1/api-keys/${k.id}/rotate`, { transition: HALF_HOUR }), 400, 'invalid_request');
    expectError(await call('POST', `/v1/api-keys/${k.id}/reveal`, { please: true }), 400, 'invalid_request');
    for (const policy of [
      { rotation_period: 'daily' },
      { rotation_period: 'weekly', every: 2 },
      { next_rotation_at: 'soon' },
      { key_transition_period_ms: 1000 },
    ]) {
      expectError(await call('POST', '/v1/api-keys', { name: 'p', rotation_policy: policy }), 400, 'invalid_request');
      expectError(await call('PUT', `/v1/api-keys/${k.id}`, { rotation_policy: policy }), 400, 'invalid_request');
    }
    const past = new Date(clock.now() - 1000).toISOString();
    expectError(
      await call('POST', '/v1/api-keys', { name: 'p', rotation_policy: { next_rotation_at: past } }),
      400,
      'invalid_request',
      'rotation_policy.next_rotation_at',
    );
    for (const suffix of ['rotate', 'reveal']) expectError(await call('POST', `/v1/api-keys/${uuid()}/${suffix}`, {}), 404, 'not_found');
    const wsB = await addWorkspace(`b-${uuid().slice(0, 8)}`, {});
    const inB = await newKey({ name: 'in-b', workspace_id: wsB });
    const adminA = await newKey({
      name: 'admin-a',
      scopes: [
        'api_keys.*',
        'configs.read',
        'completions.write',
        'prompts.render',
        'prompts.read',
        'guardrails.read',
        'rate_limits.read',
        'virtual_keys.read',
        'logs.read',
      ],
    });
    for (const suffix of ['rotate', 'reveal'])
      expectError(await call('POST', `/v1/api-keys/${inB.id}/${suffix}`, {}, adminA.key), 404, 'not_found');
    expect(await works(inB.key)).toBe(true);
  });

  it('a revoked key stops working at once and cannot be rotated', async () => {
    const k = await newKey({ name: 'revoked' });
    expect((await call('DELETE', `/v1/api-keys/${k.id}`)).status).toBe(200);
    expect(await works(k.key)).toBe(false);
    expectError(await call('POST', `/v1/api-keys/${k.id}/rotate`, {}), 404, 'not_found');
  });
});

describe('scheduled rotation and reveal', () => {
  it('rotates a due key once, with a system audit entry, sets the next time, and shows the new value once', async () => {
    const due = clock.now() + 3_600_000;
    const k = await newKey({
      name: 'scheduled',
      rotation_policy: { rotation_period: 'weekly', next_rotation_at: new Date(due).toISOString() },
    });
    expect(k.rotation_policy).toMatchObject({ rotation_period: 'weekly', next_rotation_at: new Date(due).toISOString() });
    expectError(await call('POST', `/v1/api-keys/${k.id}/reveal`, {}), 404, 'not_found');
    await gw.gateway.scheduler.runAll();
    expect((await call('GET', `/v1/api-keys/${k.id}`)).body.key_transition_expires_at).toBeNull();

    clock.advance(3_600_000);
    await gw.gateway.scheduler.runAll();
    await gw.gateway.scheduler.runAll();
    const read = (await call('GET', `/v1/api-keys/${k.id}`)).body;
    expect(read.key_transition_expires_at).toBe(new Date(clock.now() + HALF_HOUR).toISOString());
    expect(read.rotation_policy.next_rotation_at).toBe(new Date(nextBoundary('weekly', clock.now())).toISOString());
    const audit = await auditOf(k.id, 'api_key.rotate');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { type: 'system', id: null }, details: { rotation_mode: 'scheduled' } });

    const revealed = await call('POST', `/v1/api-keys/${k.id}/reveal`);
    expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
    expect(revealed.body).toMatchObject({
      id: k.id,
      object: 'api_key',
      key: expect.any(String),
      key_transition_expires_at: read.key_transition_expires_at,
    });
    expect(await works(revealed.body.key)).toBe(true);
    expect(await works(k.key)).toBe(true);
    const twice = await call('POST', `/v1/api-keys/${k.id}/reveal`, {});
    expectError(twice, 409, 'conflict');
    expect(twice.body.error.message).toContain('already revealed');
    expect(await auditOf(k.id, 'api_key.reveal')).toHaveLength(1);
    const stored = await gw.gateway.deps.store.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(revealed.body.key);
    expect(JSON.stringify(await call('GET', '/v1/audit-logs?page_size=100'))).not.toContain(revealed.body.key);

    clock.advance(HALF_HOUR);
    expect(await works(k.key)).toBe(false);
    expect(await works(revealed.body.key)).toBe(true);
  });

  it('the pending value is sealed at rest and shown to the right principal only', async () => {
    const svc = await newKey({ name: 'svc-pending', rotation_policy: { next_rotation_at: new Date(clock.now() + 60_000).toISOString() } });
    const member = await call('POST', '/v1/users', {
      email: `pending-${uuid()}@example.com`,
      workspaces: [{ id: 'default', role: 'member' }],
    });
    expect(member.status, JSON.stringify(member.body)).toBe(201);
    const user = await newKey({
      name: 'user-pending',
      type: 'workspace-user',
      user_id: member.body.id,
      scopes: ['api_keys.write', 'configs.read'],
      rotation_policy: { next_rotation_at: new Date(clock.now() + 60_000).toISOString() },
    });
    clock.advance(60_000);
    await gw.gateway.scheduler.runAll();
    const row = await gw.gateway.deps.store.db
      .selectFrom('api_keys')
      .select(['pending_key_ciphertext', 'next_rotation_at'])
      .where('id', '=', svc.id)
      .executeTakeFirstOrThrow();
    expect(row.pending_key_ciphertext).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(row.next_rotation_at).toBeNull();

    const reader = await newKey({ name: 'reader', scopes: ['api_keys.read', 'configs.read'] });
    const refused = await call('POST', `/v1/api-keys/${svc.id}/reveal`, {}, reader.key);
    expectError(refused, 403, 'forbidden');
    expect(refused.body.error.message).toContain('api_keys.write');
    expectError(await call('POST', `/v1/api-keys/${user.id}/reveal`, {}), 403, 'forbidden');
    const own = await call('POST', `/v1/api-keys/${user.id}/reveal`, {}, user.key);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(await works(own.body.key)).toBe(true);
    expect((await call('POST', `/v1/api-keys/${svc.id}/reveal`)).status).toBe(200);
  });

  it('a manual rotation during a scheduled one’s transition is 409; the schedule waits for an open transition', async () => {
    const k = await newKey({ name: 'both', rotation_policy: { next_rotation_at: new Date(clock.now() + 60_000).toISOString() } });
    const manual = await call('POST', `/v1/api-keys/${k.id}/rotate`, {});
    expect(manual.status).toBe(200);
    clock.advance(60_000);
    await gw.gateway.scheduler.runAll();
    expect(await auditOf(k.id, 'api_key.rotate')).toHaveLength(1);
    clock.advance(HALF_HOUR);
    await gw.gateway.scheduler.runAll();
    const audit = await auditOf(k.id, 'api_key.rotate');
    expect(audit.map((e) => e.details.rotation_mode)).toEqual(['scheduled', 'manual']);
    expect(await works(manual.body.key)).toBe(true);
  });
});

describe('enforced rotation period and last use', () => {
  it("user keys follow the workspace's user_api_key_rotation_period (else the organisation's); service keys do not", async () => {
    // User keys belong to a user (an organisation admin acts in every workspace).
    const admin = await call('POST', '/v1/users', { email: `rotation-${uuid()}@example.com`, role: 'admin' });
    expect(admin.status, JSON.stringify(admin.body)).toBe(201);
    const owner: string = admin.body.id;
    const monthly = await addWorkspace(`m-${uuid().slice(0, 8)}`, { user_api_key_rotation_period: 'monthly' });
    const user = await newKey({ name: 'u', type: 'workspace-user', user_id: owner, workspace_id: monthly });
    expect(user.rotation_policy).toEqual({
      rotation_period: 'monthly',
      next_rotation_at: new Date(nextBoundary('monthly', clock.now())).toISOString(),
    });
    const withTransition = await newKey({
      name: 'u2',
      type: 'workspace-user',
      user_id: owner,
      workspace_id: monthly,
      rotation_policy: { key_transition_period_ms: 2 * HALF_HOUR },
    });
    expect(withTransition.rotation_policy).toMatchObject({ rotation_period: 'monthly', key_transition_period_ms: 2 * HALF_HOUR });
    expectError(
      await call('POST', '/v1/api-keys', {
        name: 'u3',
        type: 'workspace-user',
        user_id: owner,
        workspace_id: monthly,
        rotation_policy: { rotation_period: 'weekly' },
      }),
      400,
      'invalid_request',
      'rotation_policy.rotation_period',
    );
    expectError(
      await call('PUT', `/v1/api-keys/${user.id}`, { rotation_policy: { rotation_period: 'weekly' } }),
      400,
      'invalid_request',
      'rotation_policy.rotation_period',
    );
    expectError(
      await call('PUT', `/v1/api-keys/${user.id}`, { rotation_policy: null }),
      400,
      'invalid_request',
      'rotation_policy.rotation_period',
    );
    expect((await call('PUT', `/v1/api-keys/${user.id}`, { rotation_policy: { rotation_period: 'monthly' } })).status).toBe(200);
    const service = await newKey({
      name: 's',
      type: 'workspace-service',
      workspace_id: monthly,
      rotation_policy: { rotation_period: 'weekly' },
    });
    expect(service.rotation_policy.rotation_period).toBe('weekly');

    const deps = gw.gateway.deps;
    const org = deps.runtime.current.defaultOrganisationId;
    await deps.store.db
      .updateTable('organisations')
      .set({ settings: JSON.stringify({ user_api_key_rotation_period: 'weekly' }) })
      .where('id', '=', org)
      .execute();
    try {
      const inherits = await addWorkspace(`i-${uuid().slice(0, 8)}`, {});
      expect(
        (await newKey({ name: 'u4', type: 'workspace-user', user_id: owner, workspace_id: inherits })).rotation_policy.rotation_period,
      ).toBe('weekly');
      const optedOut = await addWorkspace(`o-${uuid().slice(0, 8)}`, { user_api_key_rotation_period: null });
      expect((await newKey({ name: 'u5', type: 'workspace-user', user_id: owner, workspace_id: optedOut })).rotation_policy).toBeNull();
      expect(
        (await newKey({ name: 'u6', type: 'workspace-user', user_id: owner, workspace_id: monthly })).rotation_policy.rotation_period,
      ).toBe('monthly');
    } finally {
      await deps.store.db.updateTable('organisations').set({ settings: '{}' }).where('id', '=', org).execute();
    }
  });

  it('last_used_at is written off the request path, at the next flush', async () => {
    const k = await newKey({ name: 'used' });
    expect(await works(k.key)).toBe(true);
    expect((await call('GET', `/v1/api-keys/${k.id}`)).body.last_used_at).toBeNull();
    await gw.gateway.scheduler.runAll();
    const used = (await call('GET', `/v1/api-keys/${k.id}`)).body;
    expect(used.last_used_at).toBe(new Date(clock.now()).toISOString());
    expect((await call('GET', '/v1/api-keys?page_size=100')).body.data.find((x: Json) => x.id === k.id).last_used_at).toBe(
      used.last_used_at,
    );
  });

  it('/openapi.json documents rotate and reveal answers', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const rotate = doc.paths['/v1/api-keys/{id}/rotate'].post.responses['200'].content['application/json'].schema.properties;
    expect(Object.keys(rotate)).toEqual(
      expect.arrayContaining(['id', 'object', 'key', 'key_transition_expires_at', 'creation_mode', 'last_used_at']),
    );
    const reveal = doc.paths['/v1/api-keys/{id}/reveal'].post;
    expect(Object.keys(reveal.responses['200'].content['application/json'].schema.properties)).toEqual([
      'id',
      'object',
      'key',
      'key_transition_expires_at',
    ]);
    expect(Object.keys(reveal.responses)).toEqual(expect.arrayContaining(['200', '4XX']));
  });
});
