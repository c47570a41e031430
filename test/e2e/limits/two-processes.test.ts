import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { ensureBuilt, spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

type Json = Record<string, any>;

/**
 * The headline test of issue 8: two gateway PROCESSES (`node dist/main.js`) sharing one PostgreSQL
 * schema and one Redis prefix behave as one gateway — 200 concurrent requests against a 50 rpm
 * policy admit exactly 50, not 2 × 50.
 */
describe('two gateway processes sharing PostgreSQL and Redis', () => {
  const schema = `t_${randomId(12).toLowerCase()}`;
  const adminKey = 'proc-admin-' + randomId(20);
  let a: GatewayProcess;
  let b: GatewayProcess;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI();
    const env = {
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL,
      REDIS_PREFIX: `gwtest:${randomId(8)}:`,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_REQUEST_LOG: 'false',
    };
    // One after the other: the first migrates and bootstraps the empty schema.
    a = await spawnGateway(env);
    b = await spawnGateway(env);
  }, 180_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await fake?.close();
    await dropPostgresSchema(PG_URL, schema);
  });

  const admin = async (gw: GatewayProcess, method: string, path: string, body?: Json) => {
    const headers: Record<string, string> = { 'x-gateway-api-key': adminKey, ...(body ? { 'content-type': 'application/json' } : {}) };
    const res = await fetch(gw.url + path, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const chat = async (gw: GatewayProcess, caseId: string) => {
    const res = await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk',
        'x-gateway-metadata': JSON.stringify({ case: caseId }),
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    return { status: res.status, policy: res.headers.get('x-ratelimit-policy'), retryAfter: res.headers.get('retry-after') };
  };
  /** Windows are whole UTC minutes: start a burst only when it cannot straddle a minute edge. */
  const awayFromMinuteEdge = async (needMs: number) => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < needMs) await new Promise((r) => setTimeout(r, left + 250));
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const createPolicy = async (caseId: string, value: number) => {
    const r = await admin(a, 'POST', '/v1/policies/rate-limits', {
      type: 'requests',
      unit: 'rpm',
      value,
      conditions: [{ key: 'metadata.case', value: caseId }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  it('200 concurrent requests split over both processes against a 50 rpm policy admit exactly 50', async () => {
    await awayFromMinuteEdge(20_000);
    const caseId = randomId(10);
    const p = await createPolicy(caseId, 50);
    // Created on A; B learns of it through Redis pub/sub (and its 1 s poll as a backstop).
    await sleep(1000);
    const before = fake.requests.length;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 ? a : b, caseId)));
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(50);
    expect(refused).toHaveLength(150);
    expect(fake.requests.length - before).toBe(50);
    for (const r of [...admitted, ...refused]) expect(r.policy).toBe(p.id);
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThan(0);
    const refusedByB = results.filter((r, i) => i % 2 === 0 && r.status === 429);
    expect(refusedByB.length).toBeGreaterThan(0);
  }, 60_000);

  it('a policy created, raised and archived on one process applies on the other within one second', async () => {
    await awayFromMinuteEdge(15_000);
    const caseId = randomId(10);
    const p = await createPolicy(caseId, 3);
    await sleep(1000);
    const burst = async (n: number) =>
      (await Promise.all(Array.from({ length: n }, () => chat(b, caseId)))).filter((r) => r.status === 200).length;
    expect(await burst(6)).toBe(3);
    expect((await admin(a, 'PUT', `/v1/policies/rate-limits/${p.id}`, { value: 5 })).status).toBe(200);
    await sleep(1000);
    expect(await burst(6)).toBe(2);
    expect((await admin(a, 'DELETE', `/v1/policies/rate-limits/${p.id}`)).status).toBe(200);
    await sleep(1000);
    expect(await burst(6)).toBe(6);
    expect((await admin(b, 'GET', `/v1/policies/rate-limits/${p.id}?status=archived`)).body.status).toBe('archived');
  }, 60_000);
});
