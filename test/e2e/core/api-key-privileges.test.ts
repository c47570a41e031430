import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Privilege escalation through /v1/api-keys: a principal grants only scopes it holds (wildcards
 * included), never a broader key type, and never changes its own key's scopes.
 */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

async function call(method: string, path: string, body: unknown, key = gw.adminKey): Promise<{ status: number; body: any }> {
  const res = await gw.fetch(path, { method, body: JSON.stringify(body), headers: { 'x-gateway-api-key': key } });
  return { status: res.status, body: await res.json() };
}

/** A key made by the admin with these scopes; returns its id and value. */
let userSeq = 0;
async function keyWith(scopes: string[], type = 'workspace-service'): Promise<{ id: string; key: string }> {
  // A user key belongs to a user with a role in its workspace (here a plain member of the default one).
  const user =
    type === 'workspace-user'
      ? await call('POST', '/v1/users', {
          email: `holder${++userSeq}-${Date.now()}@example.com`,
          workspaces: [{ id: 'default', role: 'member' }],
        })
      : undefined;
  const r = await call('POST', '/v1/api-keys', {
    name: `holder of ${scopes.join(' ')}`,
    type,
    scopes,
    ...(user ? { user_id: user.body.id } : {}),
  });
  expect(r.status).toBe(201);
  return { id: r.body.id, key: r.body.key };
}

/** 403 `forbidden` naming the scope (any scope of `oneOf` when the first uncovered one depends on type defaults). */
function expectForbidden(r: { status: number; body: any }, scope: string | string[]): void {
  expect(r.status).toBe(403);
  expect(r.body.error).toMatchObject({ code: 'forbidden', type: 'permission_error' });
  const named = /'([^']+)' scope/.exec(r.body.error.message)?.[1];
  expect(typeof scope === 'string' ? [scope] : scope).toContain(named);
}

/** The scopes a key created without scopes may act with (type defaults), any of which a refusal may name. */
const DEFAULTS = [
  '*',
  'completions.write',
  'configs.read',
  'prompts.read',
  'prompts.render',
  'logs.read',
  'virtual_keys.read',
  'guardrails.read',
  'rate_limits.read',
];

describe('granting scopes', () => {
  it('a key holding only api_keys.write cannot create a * key, a key with scopes it lacks, or a key with type defaults it lacks', async () => {
    const { key } = await keyWith(['api_keys.write']);
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'root', scopes: ['*'] }, key), '*');
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'cfg', scopes: ['api_keys.write', 'configs.read'] }, key), 'configs.read');
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'wild', scopes: ['api_keys.*'] }, key), 'api_keys.*');
    // No scopes = the type's defaults, which this key does not hold.
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'defaults' }, key), DEFAULTS);
    const same = await call('POST', '/v1/api-keys', { name: 'same', scopes: ['api_keys.write'] }, key);
    expect(same.status).toBe(201);
    expect(same.body.scopes).toEqual(['api_keys.write']);
  });

  it('a resource wildcard covers its actions and itself; an action does not cover the wildcard', async () => {
    const wild = await keyWith(['api_keys.write', 'configs.*']);
    expect((await call('POST', '/v1/api-keys', { name: 'r', scopes: ['configs.read', 'configs.write'] }, wild.key)).status).toBe(201);
    expect((await call('POST', '/v1/api-keys', { name: 'w', scopes: ['configs.*'] }, wild.key)).status).toBe(201);
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'p', scopes: ['configs.read', 'prompts.read'] }, wild.key), 'prompts.read');
    const narrow = await keyWith(['api_keys.write', 'configs.read']);
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'x', scopes: ['configs.*'] }, narrow.key), 'configs.*');
    expect((await call('POST', '/v1/api-keys', { name: 'y', scopes: ['configs.read'] }, narrow.key)).status).toBe(201);
  });

  it('a key with `*` may grant anything; a workspace-user key cannot create a service key', async () => {
    const star = await keyWith(['*']);
    expect((await call('POST', '/v1/api-keys', { name: 'all', scopes: ['*'] }, star.key)).status).toBe(201);
    expect((await call('POST', '/v1/api-keys', { name: 'defaults' }, star.key)).status).toBe(201);
    const user = await keyWith(['api_keys.write', 'completions.write'], 'workspace-user');
    const svc = await call('POST', '/v1/api-keys', { name: 'svc', type: 'workspace-service', scopes: ['completions.write'] }, user.key);
    expect(svc.status).toBe(403);
    expect(svc.body.error.code).toBe('forbidden');
    expect(
      (await call('POST', '/v1/api-keys', { name: 'u', type: 'workspace-user', scopes: ['completions.write'] }, user.key)).status,
    ).toBe(201);
    // A user key's defaults include scopes this one lacks.
    expectForbidden(await call('POST', '/v1/api-keys', { name: 'u2', type: 'workspace-user' }, user.key), DEFAULTS);
  });
});

describe('rotating', () => {
  it('a key rotates itself or keys whose scopes it holds, never a more powerful key (the new value would be its)', async () => {
    const rotator = await keyWith(['api_keys.rotate', 'configs.read']);
    const powerful = await keyWith(['*']);
    expectForbidden(await call('POST', `/v1/api-keys/${powerful.id}/rotate`, {}, rotator.key), '*');
    const weaker = await keyWith(['configs.read']);
    const rotated = await call('POST', `/v1/api-keys/${weaker.id}/rotate`, {}, rotator.key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).toBeTruthy();
    expect((await call('POST', `/v1/api-keys/${rotator.id}/rotate`, {}, rotator.key)).status).toBe(200);
  });
});

describe('changing scopes', () => {
  it('a key never changes its own scopes, even to fewer; other fields of its own key may change', async () => {
    const self = await keyWith(['api_keys.write', 'api_keys.read']);
    const raise = await call('PUT', `/v1/api-keys/${self.id}`, { scopes: ['*'] }, self.key);
    expect(raise.status).toBe(403);
    expect(raise.body.error.code).toBe('forbidden');
    expect((await call('PUT', `/v1/api-keys/${self.id}`, { scopes: ['api_keys.write'] }, self.key)).status).toBe(403);
    const renamed = await call('PUT', `/v1/api-keys/${self.id}`, { name: 'renamed' }, self.key);
    expect(renamed.status).toBe(200);
    expect(renamed.body.scopes).toEqual(['api_keys.write', 'api_keys.read']);
  });

  it("another key's scopes may be set only to scopes the caller holds (an empty list means the type's defaults)", async () => {
    const caller = await keyWith(['api_keys.write', 'configs.*']);
    const target = await keyWith(['configs.read']);
    expectForbidden(await call('PUT', `/v1/api-keys/${target.id}`, { scopes: ['*'] }, caller.key), '*');
    expectForbidden(await call('PUT', `/v1/api-keys/${target.id}`, { scopes: [] }, caller.key), DEFAULTS);
    const ok = await call('PUT', `/v1/api-keys/${target.id}`, { scopes: ['configs.write'] }, caller.key);
    expect(ok.status).toBe(200);
    expect(ok.body.scopes).toEqual(['configs.write']);
    expect((await call('PUT', `/v1/api-keys/${target.id}`, { scopes: ['*'] })).status).toBe(200);
  });
});
