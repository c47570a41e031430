import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { hashEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { cacheCapability } from '../../../src/features/cache/cache-capability.js';
import { ask, cacheConfig, chat, chatCalls, embeddingCalls, metric } from './cache-helpers.js';

/** Controlled embeddings: cosine with ORIGINAL is the number in the name. */
const ORIGINAL = 'what is the capital of france';
const at = (cos: number) => [cos, Math.sqrt(1 - cos * cos), 0, 0, 0, 0, 0, 0];
const VECTORS: Record<string, number[]> = {
  [ORIGINAL]: at(1),
  'capital of france? (0.96)': at(0.96),
  'france capital (0.951)': at(0.951),
  'france capital (0.949)': at(0.949),
  'france capital (0.92)': at(0.92),
  'something else entirely': [0, 0, 1, 0, 0, 0, 0, 0],
};

let fake: FakeOpenAI;
let gw: TestGateway;
let loose: TestGateway;
const cache = cacheCapability();
const looseCache = cacheCapability();

beforeAll(async () => {
  fake = await startFakeOpenAI({ embed: (t) => VECTORS[t] ?? hashEmbedding(t) });
  gw = await startGateway({ capabilities: [cache] });
  loose = await startGateway({
    capabilities: [looseCache],
    env: { SEMANTIC_CACHE_THRESHOLD: '0.9', SEMANTIC_CACHE_EMBEDDING_MODEL: 'embed-test-1' },
  });
});
afterAll(async () => {
  await gw?.close();
  await loose?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

let n = 0;
/** A system prompt per test, so each test has its own semantic bucket. */
const system = () => `bucket ${++n} ${Math.random()}`;
const q = (sys: string, text: string) => ({
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: sys },
    { role: 'user', content: text },
  ],
});
const semantic = () => cacheConfig(fake, { mode: 'semantic' });

describe('semantic cache', () => {
  it('serves a stored answer to a similar question (cosine 0.96 ≥ 0.95) as SEMANTIC HIT', async () => {
    const sys = system();
    const first = await chat(gw, semantic(), q(sys, ORIGINAL));
    expect(first.cache).toBe('MISS');
    await cache.settle();
    const similar = await chat(gw, semantic(), q(sys, 'capital of france? (0.96)'));
    expect(similar.cache).toBe('SEMANTIC HIT');
    expect(similar.body.choices[0].message.content).toBe(`echo: ${ORIGINAL}`);
    expect(chatCalls(fake)).toBe(1);
    expect(embeddingCalls(fake)).toEqual([
      { model: 'text-embedding-3-small', input: ORIGINAL },
      { model: 'text-embedding-3-small', input: 'capital of france? (0.96)' },
    ]);
  });

  it('hits just above the threshold and misses just below it', async () => {
    const sys = system();
    await chat(gw, semantic(), q(sys, ORIGINAL));
    await cache.settle();
    const below = await chat(gw, semantic(), q(sys, 'france capital (0.949)'));
    expect(below.cache).toBe('MISS');
    expect(below.body.choices[0].message.content).toBe('echo: france capital (0.949)');
    await cache.settle();
    expect((await chat(gw, semantic(), q(sys, 'france capital (0.951)'))).cache).toBe('SEMANTIC HIT');
  });

  it('checks the exact key first, without an embedding call', async () => {
    const sys = system();
    await chat(gw, semantic(), q(sys, ORIGINAL));
    await cache.settle();
    fake.reset();
    expect((await chat(gw, semantic(), q(sys, ORIGINAL))).cache).toBe('HIT');
    expect(embeddingCalls(fake)).toEqual([]);
  });

  it('requires everything but the last user message to match exactly', async () => {
    const sys = system();
    await chat(gw, semantic(), q(sys, ORIGINAL));
    await cache.settle();
    expect((await chat(gw, semantic(), q(sys + ' (other)', 'capital of france? (0.96)'))).cache).toBe('MISS');
    expect((await chat(gw, semantic(), { ...q(sys, 'capital of france? (0.96)'), temperature: 1 })).cache).toBe('MISS');
    expect((await chat(gw, semantic(), q(sys, 'capital of france? (0.96)'), { authorization: 'Bearer sk-other' })).cache).toBe('MISS');
    expect((await chat(gw, semantic(), q(sys, 'something else entirely'))).cache).toBe('MISS');
  });

  it('takes its threshold and embedding model from the environment', async () => {
    const sys = system();
    await chat(loose, semantic(), q(sys, ORIGINAL));
    await looseCache.settle();
    const res = await chat(loose, semantic(), q(sys, 'france capital (0.92)'));
    expect(res.cache).toBe('SEMANTIC HIT');
    expect(new Set(embeddingCalls(fake).map((c) => c.model))).toEqual(new Set(['embed-test-1']));
  });

  it('replays a semantic hit as a stream for a streamed request', async () => {
    const sys = system();
    await chat(gw, semantic(), q(sys, ORIGINAL));
    await cache.settle();
    const { data: stream, response } = await gw
      .openai({ 'x-gateway-config': semantic() }, { apiKey: 'sk-a' })
      .chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: q(sys, 'capital of france? (0.96)').messages as OpenAI.ChatCompletionMessageParam[],
      })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(response.headers.get('x-gateway-cache-status')).toBe('SEMANTIC HIT');
    expect(text).toBe(`echo: ${ORIGINAL}`);
  });

  it('stores the vector of a force-refreshed answer', async () => {
    const sys = system();
    const refreshed = await chat(gw, semantic(), q(sys, ORIGINAL), { 'x-gateway-cache-force-refresh': 'true' });
    expect(refreshed.cache).toBe('REFRESH');
    await cache.settle();
    expect((await chat(gw, semantic(), q(sys, 'capital of france? (0.96)'))).cache).toBe('SEMANTIC HIT');
  });

  it('answers a MISS with a warning when the embedding call fails', async () => {
    const sys = system();
    const before = await metric(gw, 'gateway_degraded_total{component="cache"}');
    fake.fail({ status: 500, body: { error: { message: 'embeddings down', type: 'server_error', param: null, code: null } } });
    const res = await chat(gw, semantic(), q(sys, ORIGINAL));
    expect(res.status).toBe(200);
    expect(res.cache).toBe('MISS');
    expect(res.body.choices[0].message.content).toBe(`echo: ${ORIGINAL}`);
    expect(await metric(gw, 'gateway_degraded_total{component="cache"}')).toBe(before + 1);
  });
});
