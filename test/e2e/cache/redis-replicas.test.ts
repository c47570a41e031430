import { freePort } from '../../helpers/ports.js';
import { startRedis, stopRedis } from '../../helpers/redis-server.js';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { hashEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { cacheCapability } from '../../../src/features/cache/cache-capability.js';
import { waitForRedis } from '../../../src/infra/state/redis-ready.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { cacheConfig, chat, chatCalls, metric } from './cache-helpers.js';

const ORIGINAL = 'what is the capital of france';
const SIMILAR = 'capital of france, please';
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    embed: (t) => (t === ORIGINAL ? [1, 0, 0, 0] : t === SIMILAR ? [0.97, 0.243, 0, 0] : hashEmbedding(t).slice(0, 4)),
  });
});
afterAll(async () => {
  await fake?.close();
});

let n = 0;
const q = (text: string, sys = `replicas ${++n} ${Math.random()}`) => ({
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: sys },
    { role: 'user', content: text },
  ],
});

describe('two replicas sharing one Redis cache', () => {
  let a: TestGateway;
  let b: TestGateway;
  const cacheA = cacheCapability();
  const cacheB = cacheCapability();
  const adminKey = 'test-admin-' + randomId(24);
  /** Both replicas share the store, so the admin key is the one given in the environment. */
  const key = { 'x-gateway-api-key': adminKey };

  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:`, GATEWAY_ADMIN_KEY: adminKey };
    a = await startGateway({ store: 'postgres', env, capabilities: [cacheA] });
    b = await startGateway({ store: 'postgres', pgSchema: a.pgSchema, env, capabilities: [cacheB] });
    await waitForRedis(a.gateway.deps.state.redis!);
    await waitForRedis(b.gateway.deps.state.redis!);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('serves on one replica what the other stored', async () => {
    fake.reset();
    const body = q('shared answer');
    const first = await chat(a, cacheConfig(fake, { mode: 'simple' }), body, key);
    expect(first.cache).toBe('MISS');
    await cacheA.settle();
    const second = await chat(b, cacheConfig(fake, { mode: 'simple' }), body, key);
    expect(second.cache).toBe('HIT');
    expect(second.body).toEqual(first.body);
    expect(chatCalls(fake)).toBe(1);
  });

  it('shares a streamed answer stored by one replica with the other, replayed as a stream', async () => {
    const body = q('shared stream');
    const sdk = (gw: TestGateway) => gw.openai({ ...key, 'x-gateway-config': cacheConfig(fake, { mode: 'simple' }) }, { apiKey: 'sk-a' });
    const run = async (gw: TestGateway) => {
      const { data, response } = await sdk(gw)
        .chat.completions.create({ model: 'gpt-4o', stream: true, messages: body.messages as OpenAI.ChatCompletionMessageParam[] })
        .withResponse();
      let text = '';
      for await (const c of data) text += c.choices[0]?.delta.content ?? '';
      return { text, cache: response.headers.get('x-gateway-cache-status') };
    };
    expect(await run(b)).toEqual({ text: 'echo: shared stream', cache: 'MISS' });
    await cacheB.settle();
    expect(await run(a)).toEqual({ text: 'echo: shared stream', cache: 'HIT' });
  });

  it('shares semantic vectors: a similar question on the other replica is a SEMANTIC HIT', async () => {
    const sys = `semantic replicas ${Math.random()}`;
    await chat(a, cacheConfig(fake, { mode: 'semantic' }), q(ORIGINAL, sys), key);
    await cacheA.settle();
    const res = await chat(b, cacheConfig(fake, { mode: 'semantic' }), q(SIMILAR, sys), key);
    expect(res.cache).toBe('SEMANTIC HIT');
    expect(res.body.choices[0].message.content).toBe(`echo: ${ORIGINAL}`);
  });

  it('expires shared entries at max_age on both replicas', async () => {
    const body = q('short lived');
    await chat(a, cacheConfig(fake, { mode: 'simple', max_age: 1 }), body, key);
    await cacheA.settle();
    expect((await chat(b, cacheConfig(fake, { mode: 'simple', max_age: 1 }), body, key)).cache).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await chat(b, cacheConfig(fake, { mode: 'simple', max_age: 1 }), body, key)).cache).toBe('MISS');
  });
});

describe('Redis killed mid-test', () => {
  let port: number;
  let gw: TestGateway;
  const cache = cacheCapability();

  beforeAll(async () => {
    port = await freePort();
    await startRedis(port);
    gw = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `gwtest:${randomId(8)}:` },
      capabilities: [cache],
    });
    await waitForRedis(gw.gateway.deps.state.redis!);
  });
  afterAll(async () => {
    await gw?.close();
    stopRedis(port);
  });

  it('answers every request as a MISS with a warning while Redis is down, and caches again once it is back', async () => {
    const config = cacheConfig(fake, { mode: 'simple' });
    const body = q('survive an outage');
    expect((await chat(gw, config, body)).cache).toBe('MISS');
    await cache.settle();
    expect((await chat(gw, config, body)).cache).toBe('HIT');

    stopRedis(port);
    const warnings = await metric(gw, 'gateway_degraded_total{component="cache"}');
    fake.reset();
    for (let i = 0; i < 3; i++) {
      const res = await chat(gw, config, body);
      expect(res.status).toBe(200);
      expect(res.cache).toBe('MISS');
      expect(res.body.choices[0].message.content).toBe('echo: survive an outage');
    }
    const semantic = await chat(gw, cacheConfig(fake, { mode: 'semantic' }), q(ORIGINAL));
    expect(semantic).toMatchObject({ status: 200, cache: 'MISS' });
    await cache.settle();
    expect(chatCalls(fake)).toBe(4);
    expect(await metric(gw, 'gateway_degraded_total{component="cache"}')).toBeGreaterThanOrEqual(warnings + 4);

    await startRedis(port);
    await waitForRedis(gw.gateway.deps.state.redis!, 10_000);
    expect((await chat(gw, config, body)).cache).toBe('MISS');
    await cache.settle();
    expect((await chat(gw, config, body)).cache).toBe('HIT');
  }, 30_000);
});
