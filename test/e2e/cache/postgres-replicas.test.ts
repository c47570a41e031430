import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { hashEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { cacheBackend, cacheCapability } from '../../../src/features/cache/cache-capability.js';
import { up as createCacheTables } from '../../../src/infra/store/migrations/0002-cache.js';
import { waitForRedis } from '../../../src/infra/state/redis-ready.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { cacheConfig, chat, chatCalls, embeddingCalls, metric } from './cache-helpers.js';

const ORIGINAL = 'what is the capital of france';
const SIMILAR = 'capital of france, please';
const FAR = 'how tall is mount everest';
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    embed: (t) =>
      t === ORIGINAL ? [1, 0, 0, 0] : t === SIMILAR ? [0.97, 0.243, 0, 0] : t === FAR ? [0, 0, 1, 0] : hashEmbedding(t).slice(0, 4),
  });
});
afterAll(async () => {
  await fake?.close();
});

let n = 0;
const q = (text: string, sys = `pg replicas ${++n} ${Math.random()}`) => ({
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: sys },
    { role: 'user', content: text },
  ],
});
const rows = async (gw: TestGateway, table: 'cache_entries' | 'cache_vectors') =>
  (await gw.gateway.deps.store.db.selectFrom(table).select('key').execute()).length;

describe('backend choice', () => {
  it('prefers Redis, then PostgreSQL, then memory', () => {
    expect(cacheBackend(true, 'postgres')).toBe('redis');
    expect(cacheBackend(true, 'sqlite')).toBe('redis');
    expect(cacheBackend(false, 'postgres')).toBe('postgres');
    expect(cacheBackend(false, 'sqlite')).toBe('memory');
  });

  it('keeps answers in Redis, not in PostgreSQL, when both are configured', async () => {
    const cache = cacheCapability();
    const gw = await startGateway({ store: 'postgres', env: { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` }, capabilities: [cache] });
    try {
      await waitForRedis(gw.gateway.deps.state.redis!);
      const body = q('redis wins');
      expect((await chat(gw, cacheConfig(fake, { mode: 'simple' }), body)).cache).toBe('MISS');
      await cache.settle();
      expect((await chat(gw, cacheConfig(fake, { mode: 'simple' }), body)).cache).toBe('HIT');
      expect(await rows(gw, 'cache_entries')).toBe(0);
    } finally {
      await gw.close();
    }
  });
});

describe('two replicas sharing PostgreSQL without Redis', () => {
  let a: TestGateway;
  let b: TestGateway;
  const cacheA = cacheCapability();
  const cacheB = cacheCapability();
  const adminKey = 'test-admin-' + randomId(24);
  const key = { 'x-gateway-api-key': adminKey };

  beforeAll(async () => {
    const env = { GATEWAY_ADMIN_KEY: adminKey };
    a = await startGateway({ store: 'postgres', env, capabilities: [cacheA] });
    b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema, env, capabilities: [cacheB] });
    expect(a.gateway.deps.state.redis).toBeNull();
    expect(b.gateway.deps.state.redis).toBeNull();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('serves on one replica the exact answer the other stored, from cache_entries', async () => {
    fake.reset();
    const body = q('shared through postgres');
    const first = await chat(a, cacheConfig(fake, { mode: 'simple' }), body, key);
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    await cacheA.settle();
    const second = await chat(b, cacheConfig(fake, { mode: 'simple' }), body, key);
    expect(second.cache).toBe('HIT');
    expect(second.body).toEqual(first.body);
    expect(chatCalls(fake)).toBe(1);
    expect(await rows(b, 'cache_entries')).toBeGreaterThanOrEqual(1);
  });

  it('shares semantic vectors: a similar question on the other replica is a SEMANTIC HIT, a far one a MISS', async () => {
    fake.reset();
    const sys = `semantic pg ${Math.random()}`;
    expect((await chat(a, cacheConfig(fake, { mode: 'semantic' }), q(ORIGINAL, sys), key)).cache).toBe('MISS');
    await cacheA.settle();
    const similar = await chat(b, cacheConfig(fake, { mode: 'semantic' }), q(SIMILAR, sys), key);
    expect(similar.cache).toBe('SEMANTIC HIT');
    expect(similar.body.choices[0].message.content).toBe(`echo: ${ORIGINAL}`);
    const far = await chat(b, cacheConfig(fake, { mode: 'semantic' }), q(FAR, sys), key);
    expect(far.cache).toBe('MISS');
    expect(far.body.choices[0].message.content).toBe(`echo: ${FAR}`);
    expect(chatCalls(fake)).toBe(2);
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([ORIGINAL, SIMILAR, FAR]);
    await cacheB.settle();
    expect(await rows(a, 'cache_vectors')).toBeGreaterThanOrEqual(2);
  });

  it('expires shared entries at max_age on both replicas', async () => {
    const body = q('short lived in postgres');
    const config = cacheConfig(fake, { mode: 'simple', max_age: 1 });
    await chat(a, config, body, key);
    await cacheA.settle();
    expect((await chat(b, config, body, key)).cache).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await chat(b, config, body, key)).cache).toBe('MISS');
    // b's miss stored a fresh answer (replacing the expired row), which a now serves.
    await cacheB.settle();
    expect((await chat(a, config, body, key)).cache).toBe('HIT');
  });

  it('answers as MISS with a warning while the cache tables are unusable, and caches again once they are back', async () => {
    const config = cacheConfig(fake, { mode: 'simple' });
    const body = q('survive a database failure');
    const db = a.gateway.deps.store.db;
    await sql`drop table cache_vectors`.execute(db);
    await sql`drop table cache_entries`.execute(db);
    try {
      const warnings = await metric(a, 'gateway_degraded_total{component="cache"}');
      fake.reset();
      for (let i = 0; i < 2; i++) {
        const res = await chat(a, config, body, key);
        expect(res).toMatchObject({ status: 200, cache: 'MISS' });
        expect(res.body.choices[0].message.content).toBe('echo: survive a database failure');
      }
      await cacheA.settle();
      expect(chatCalls(fake)).toBe(2);
      // Two failed reads and two failed writes.
      expect(await metric(a, 'gateway_degraded_total{component="cache"}')).toBeGreaterThanOrEqual(warnings + 4);
    } finally {
      await createCacheTables(db as unknown as Kysely<unknown>);
    }
    expect((await chat(a, config, body, key)).cache).toBe('MISS');
    await cacheA.settle();
    expect((await chat(b, config, body, key)).cache).toBe('HIT');
  });
});
