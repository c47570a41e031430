import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../foundation/lib/clock.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import type { LeafCall } from '../../routing/execute.js';
import { JsonAnswer, type CacheStatus, type Outcome } from '../../routing/outcome.js';
import { Background } from './background.js';
import { createCacheInterceptor } from './cache-interceptor.js';
import type { CacheStore } from './cache-store.js';
import { MemoryCacheStore, MemoryVectorIndex } from './memory-cache-store.js';

function setup(store?: CacheStore) {
  const clock = new FakeClock();
  const background = new Background();
  const degraded: string[] = [];
  const statuses: CacheStatus[] = [];
  const embeddings: unknown[] = [];
  const http = {
    send: async (req: { body?: unknown }) => {
      embeddings.push(req.body);
      return {
        status: 200,
        headers: {},
        body: {
          text: async () =>
            JSON.stringify({
              object: 'list',
              data: [{ object: 'embedding', index: 0, embedding: [1, 0] }],
              model: 'e',
              usage: { prompt_tokens: 1, total_tokens: 1 },
            }),
        },
      };
    },
  } as unknown as HttpClient;
  const interceptor = createCacheInterceptor({
    store: store ?? new MemoryCacheStore(clock, 1 << 20),
    index: new MemoryVectorIndex(clock, 8, 8),
    clock,
    http,
    background,
    embeddingModel: 'e',
    threshold: 0.95,
    embedTimeoutMs: 1000,
    degraded: (what) => degraded.push(what),
    observe: (s) => statuses.push(s),
  });
  return { clock, background, degraded, statuses, embeddings, interceptor };
}

const adapter = {
  name: 'openai',
  endpoints: {
    embeddings: {
      buildRequest: () => ({ url: 'http://x/v1/embeddings', method: 'POST', headers: {}, body: 'e' }),
      mapResponse: (b: unknown) => b,
    },
  },
  mapError: () => new Error('x'),
};

function call(mode: 'simple' | 'semantic' | null, text = 'hello'): LeafCall {
  return {
    node: { cache: mode ? { mode, maxAgeSeconds: 60 } : null },
    adapter,
    target: { provider: 'openai', apiKey: 'k', config: {}, forwardHeaders: {} },
    body: { model: 'm', messages: [{ role: 'user', content: text }] },
    input: { endpoint: 'chat', stream: false, workspaceId: 'w', cacheForceRefresh: false, body: {}, signal: new AbortController().signal },
    path: 'config',
  } as unknown as LeafCall;
}

const answer = (status = 200): Outcome => ({
  status,
  provider: 'openai',
  path: 'config',
  retries: 0,
  cacheStatus: 'DISABLED',
  headers: {},
  json: new JsonAnswer({ value: { id: 'a', choices: [] } }),
});

describe('cache interceptor', () => {
  it('leaves DISABLED untouched without cache settings', async () => {
    const t = setup();
    const out = await t.interceptor(call(null), async () => answer());
    expect(out.cacheStatus).toBe('DISABLED');
    expect(t.statuses).toEqual(['DISABLED']);
  });

  it('stores 2xx answers but neither 246 answers nor failures', async () => {
    const t = setup();
    await t.interceptor(call('simple', 'a'), async () => answer(246));
    await expect(t.interceptor(call('simple', 'b'), async () => Promise.reject(new Error('upstream')))).rejects.toThrow('upstream');
    await t.background.settle();
    expect((await t.interceptor(call('simple', 'a'), async () => answer())).cacheStatus).toBe('MISS');
    await t.background.settle();
    const hit = await t.interceptor(call('simple', 'a'), async () => answer());
    expect(hit.cacheStatus).toBe('HIT');
    expect(hit.json!.value).toEqual({ id: 'a', choices: [] });
  });

  it('degrades to MISS without an embedding call when the backend fails', async () => {
    const broken: CacheStore = {
      kind: 'redis',
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const t = setup(broken);
    const out = await t.interceptor(call('semantic'), async () => answer());
    expect(out.cacheStatus).toBe('MISS');
    await t.background.settle();
    expect(t.degraded).toContain('read');
    expect(t.degraded).toContain('write');
    expect(t.embeddings).toEqual([]);
  });

  it('serves a semantic hit from a vector stored by an earlier miss', async () => {
    const t = setup();
    await t.interceptor(call('semantic', 'first'), async () => answer());
    await t.background.settle();
    const out = await t.interceptor(call('semantic', 'second'), async () => answer());
    expect(out.cacheStatus).toBe('SEMANTIC HIT');
    expect(t.embeddings).toHaveLength(2);
  });
});
