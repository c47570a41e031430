import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { reserveAmount } from '../../../src/features/limits/usage-amount.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { ensureBuilt, spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

type Json = Record<string, any>;

/** The fake reports `usage.cost` in dollars, as OpenRouter does. */
const COST_PER_TOKEN = 0.0001;

/** A prompt whose answer (prompt + echo) spends more tokens than the admission estimates, as real answers do. */
// A model the price catalogue does not know: its cost is the dollars the fake reports (`usage.cost`).
const BODY = { model: 'fake-metered-model', messages: [{ role: 'user', content: 'token '.repeat(64) }] };

/**
 * The headline test of issue 19: two gateway PROCESSES sharing one PostgreSQL schema and one Redis
 * prefix enforce one budget — 200 concurrent requests against a budget of N requests admit exactly
 * N, and against a tokens budget the overshoot is at most what the requests in flight spent.
 */
describe('usage limits across two gateway processes sharing PostgreSQL and Redis', () => {
  const schema = `t_${randomId(12).toLowerCase()}`;
  const adminKey = 'proc-admin-' + randomId(20);
  let a: GatewayProcess;
  let b: GatewayProcess;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI({ costPerToken: COST_PER_TOKEN });
    const env = {
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL,
      REDIS_PREFIX: `gwtest:${randomId(8)}:`,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_REQUEST_LOG: 'false',
    };
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
      body: JSON.stringify(BODY),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const createPolicy = async (caseId: string, body: Json) => {
    const r = await admin(a, 'POST', '/v1/policies/usage-limits', {
      ...body,
      periodic_reset: 'monthly',
      conditions: [{ key: 'metadata.case', value: caseId }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    // Created on A; B learns of it through Redis pub/sub (and its 1 s poll as a backstop).
    await sleep(1000);
    return r.body;
  };
  /** The group's usage as B reports it, once settlements (off the response path) have landed. */
  const usedOn = async (gw: GatewayProcess, id: string, expected?: number) => {
    let used = 0;
    for (let i = 0; i < 50; i++) {
      const r = await admin(gw, 'GET', `/v1/policies/usage-limits/${id}/entities`);
      used = r.body.data[0]?.used ?? 0;
      if (expected === undefined || used === expected) break;
      await sleep(50);
    }
    return used;
  };

  it('200 concurrent requests over both processes against a budget of 37 requests admit exactly 37', async () => {
    const caseId = randomId(10);
    const p = await createPolicy(caseId, { type: 'requests', credit_limit: 37 });
    const before = fake.requests.length;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 ? a : b, caseId)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(37);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(163);
    for (const r of refused) expect(r.body.error.code).toBe('usage_limit_exceeded');
    expect(results.some((r, i) => i % 2 === 0 && r.status === 429)).toBe(true);
    expect(results.some((r, i) => i % 2 === 1 && r.status === 429)).toBe(true);
    expect(fake.requests.length - before).toBe(37);
    expect(await usedOn(b, p.id, 37)).toBe(37);
  }, 60_000);

  it('against a tokens budget, usage settles exactly and overshoots by at most the requests in flight', async () => {
    const caseId = randomId(10);
    const limit = 2000;
    const p = await createPolicy(caseId, { type: 'tokens', credit_limit: limit });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 ? a : b, caseId)));
    const admitted = results.filter((r) => r.status === 200);
    const spent = admitted.reduce((n, r) => n + r.body.usage.total_tokens, 0);
    const perAnswer = admitted[0]!.body.usage.total_tokens;
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    // Settlement is exact across both processes: the counter holds what the answers reported.
    const used = await usedOn(a, p.id, spent);
    expect(used).toBe(spent);
    expect(used).toBeGreaterThanOrEqual(limit);
    // Each admission reserves its estimate first, so at most ceil(limit / estimate) requests can be in
    // flight when the budget is reached: the overshoot is bounded by what those spend.
    const inFlightBound = Math.ceil(limit / reserveAmount('tokens', BODY)) * perAnswer;
    expect(used - limit).toBeLessThanOrEqual(inFlightBound);
    const after = await chat(b, caseId);
    expect(after.status).toBe(429);
  }, 60_000);

  it('against a cost budget, the reported dollars settle exactly and overshoot by less than one answer', async () => {
    const caseId = randomId(10);
    const limit = 0.5;
    const p = await createPolicy(caseId, { type: 'cost', credit_limit: limit });
    // Each process learns what an answer costs (its admissions then reserve that much).
    const warm = [await chat(a, caseId), await chat(b, caseId)];
    const perAnswer = warm[0]!.body.usage.cost as number;
    expect(perAnswer).toBeGreaterThan(0);
    // Settlement runs after the answer's last byte: let both land before the burst.
    await usedOn(b, p.id, 2 * perAnswer);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 ? a : b, caseId)));
    const admitted = [...warm, ...results].filter((r) => r.status === 200);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    const spent = admitted.reduce((n, r) => n + r.body.usage.cost, 0);
    let used = 0;
    for (let i = 0; i < 50; i++) {
      used = (await usedOn(a, p.id)) as number;
      if (Math.abs(used - spent) < 1e-9) break;
      await sleep(50);
    }
    expect(used).toBeCloseTo(spent, 9);
    expect(used).toBeGreaterThanOrEqual(limit);
    expect(used - limit).toBeLessThan(perAnswer);
    expect((await chat(a, caseId)).status).toBe(429);
    expect((await chat(b, caseId)).status).toBe(429);
  }, 60_000);
});
