import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { dropPostgresSchema, openStore } from '../../../src/infra/store/store.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Two gateway processes sharing PostgreSQL and Redis: a change made through one — deactivating or
 * deleting a user, removing a membership, archiving a workspace — stops the affected user keys on the
 * other within one second (the roles live in each key's snapshot entry, not in a per-request query).
 */
let one: GatewayProcess;
let two: GatewayProcess;
let fake: FakeOpenAI;
const schema = `t_${randomId(12).toLowerCase()}`;
const adminKey = 'tenancy-replica-' + randomId(16);
let seq = 0;

async function call(
  gw: GatewayProcess,
  method: string,
  path: string,
  body?: unknown,
  key = adminKey,
): Promise<{ status: number; body: any }> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const chat = async (gw: GatewayProcess, key: string) =>
  (
    await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }),
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
  ).status;

/** Milliseconds until a chat through `gw` with `key` answers `status` (fails after one second). */
async function msUntil(gw: GatewayProcess, key: string, status: number): Promise<number> {
  const t0 = Date.now();
  let got = await chat(gw, key);
  while (got !== status && Date.now() - t0 < 1000) got = await chat(gw, key);
  expect(got).toBe(status);
  return Date.now() - t0;
}

/** A member of `workspace` (created through replica one) and a user key of theirs, working on replica two. */
async function memberKey(workspace: string): Promise<{ userId: string; key: string }> {
  const user = await call(one, 'POST', '/v1/users', { email: `r${++seq}@example.com`, workspaces: [{ id: workspace, role: 'member' }] });
  expect(user.status).toBe(201);
  const key = await call(one, 'POST', '/v1/api-keys', {
    name: 'u',
    type: 'workspace-user',
    workspace_id: workspace,
    user_id: user.body.id,
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  expect(await msUntil(two, key.body.key, 200)).toBeLessThan(1000);
  return { userId: user.body.id, key: key.body.key };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  await (await openStore({ kind: 'postgres', url: PG_URL, schema })).close();
  const env = {
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_PREFIX: `gwtest:${randomId(8)}:`,
    GATEWAY_ADMIN_KEY: adminKey,
  };
  one = await spawnGateway(env);
  two = await spawnGateway(env);
}, 120_000);
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await fake?.close();
  await dropPostgresSchema(PG_URL, schema);
});

describe('tenancy across two gateway processes', () => {
  it('deactivating and deleting a user stops their keys on the other replica within one second', async () => {
    const a = await memberKey('default');
    expect((await call(one, 'PUT', `/v1/users/${a.userId}`, { status: 'deactivated' })).status).toBe(200);
    expect(await msUntil(two, a.key, 401)).toBeLessThan(1000);
    const b = await memberKey('default');
    expect((await call(one, 'DELETE', `/v1/users/${b.userId}`)).status).toBe(200);
    expect(await msUntil(two, b.key, 401)).toBeLessThan(1000);
  });

  it('removing a membership and archiving a workspace refuse its keys on the other replica within one second', async () => {
    const ws = await call(one, 'POST', '/v1/workspaces', { name: 'Replicated', slug: 'replicated' });
    expect(ws.status).toBe(201);
    const a = await memberKey('replicated');
    expect((await call(one, 'DELETE', `/v1/workspaces/replicated/members/${a.userId}`)).status).toBe(200);
    expect(await msUntil(two, a.key, 403)).toBeLessThan(1000);
    const b = await memberKey('replicated');
    expect((await call(one, 'DELETE', '/v1/workspaces/replicated')).status).toBe(200);
    expect(await msUntil(two, b.key, 403)).toBeLessThan(1000);
    const refused = await call(two, 'GET', '/v1/configs', undefined, b.key);
    expect(refused.body.error.message).toContain('archived');
  });
});
