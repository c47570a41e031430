import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { dropPostgresSchema, openStore } from '../../../src/infra/store/store.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Two gateway processes sharing PostgreSQL and Redis: a console session started on one works on the
 * other at once (a cookie the other has not loaded makes it catch up with the change outbox), and a
 * logout or a user deletion on one is refused by the other within one second.
 */
let one: GatewayProcess;
let two: GatewayProcess;
const schema = `t_${randomId(12).toLowerCase()}`;
const adminKey = 'session-replica-' + randomId(16);
let seq = 0;

async function call(
  gw: GatewayProcess,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'x-gateway-api-key': adminKey },
): Promise<{ status: number; body: any; res: Response }> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, res };
}

/** A new member of the default workspace logged in through replica `gw`: their id and the session's cookie and CSRF headers. */
async function loggedIn(gw: GatewayProcess): Promise<{ userId: string; headers: Record<string, string> }> {
  const user = await call(one, 'POST', '/v1/users', { email: `sr${++seq}@example.com`, workspaces: [{ id: 'default', role: 'member' }] });
  expect(user.status).toBe(201);
  const key = await call(one, 'POST', '/v1/api-keys', { name: 'console', type: 'workspace-user', user_id: user.body.id });
  expect(key.status).toBe(201);
  // The key was made on replica one; logging in through `gw` may need it to catch up first.
  const t0 = Date.now();
  let login = await call(gw, 'POST', '/v1/auth/login', { api_key: key.body.key }, {});
  while (login.status === 401 && Date.now() - t0 < 1000) login = await call(gw, 'POST', '/v1/auth/login', { api_key: key.body.key }, {});
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const cookies = login.res.headers.getSetCookie().map((l) => l.split(';')[0]!);
  const csrf = cookies.find((c) => c.startsWith('gw_csrf='))!.slice('gw_csrf='.length);
  return { userId: user.body.id, headers: { cookie: cookies.join('; '), 'x-gateway-csrf': csrf } };
}

/** Milliseconds until `GET /v1/auth/session` through `gw` answers `status` (fails after one second). */
async function msUntil(gw: GatewayProcess, headers: Record<string, string>, status: number): Promise<number> {
  const t0 = Date.now();
  let got = (await call(gw, 'GET', '/v1/auth/session', undefined, headers)).status;
  while (got !== status && Date.now() - t0 < 1000) got = (await call(gw, 'GET', '/v1/auth/session', undefined, headers)).status;
  expect(got).toBe(status);
  return Date.now() - t0;
}

beforeAll(async () => {
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
  await dropPostgresSchema(PG_URL, schema);
});

describe('console sessions across two gateway processes', () => {
  it('a session started on one replica works on the other at once, for reads and CSRF-checked writes', async () => {
    const s = await loggedIn(one);
    const read = await call(two, 'GET', '/v1/auth/session', undefined, s.headers);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.user.id).toBe(s.userId);
    const write = await call(two, 'POST', '/v1/api-keys', { name: 'from-b', type: 'workspace-user' }, s.headers);
    expect(write.status, JSON.stringify(write.body)).toBe(201);
    expect(write.body.user_id).toBe(s.userId);
  });

  it('logout on one replica is refused on the other within one second', async () => {
    const s = await loggedIn(one);
    expect((await call(two, 'GET', '/v1/auth/session', undefined, s.headers)).status).toBe(200);
    expect((await call(one, 'POST', '/v1/auth/logout', undefined, s.headers)).status).toBe(204);
    expect(await msUntil(two, s.headers, 401)).toBeLessThan(1000);
  });

  it('deleting or deactivating a user on one replica ends their session on the other within one second', async () => {
    const a = await loggedIn(two);
    expect((await call(one, 'GET', '/v1/auth/session', undefined, a.headers)).status).toBe(200);
    expect((await call(one, 'DELETE', `/v1/users/${a.userId}`)).status).toBe(200);
    expect(await msUntil(two, a.headers, 401)).toBeLessThan(1000);
    const b = await loggedIn(two);
    expect((await call(one, 'PUT', `/v1/users/${b.userId}`, { status: 'deactivated' })).status).toBe(200);
    expect(await msUntil(two, b.headers, 401)).toBeLessThan(1000);
  });
});
