/** Cache key derivation (src/features/cache/cache-key.ts) and a hit in the in-process store (memory-cache-store.ts). */
import { COMPLETION_BODY } from '../fake-upstream.mjs';

const BODY = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Say hello in five words.' },
  ],
  max_tokens: 64,
  stream: false,
};

/** Registers the cache tasks. */
export async function register(bench, dist) {
  const { exactKey, semanticKey } = await dist('features/cache/cache-key.js');
  const { MemoryCacheStore } = await dist('features/cache/memory-cache-store.js');
  const { systemClock } = await dist('foundation/lib/clock.js');
  const input = {
    workspaceId: 'ws-default',
    endpoint: 'chat',
    target: {
      provider: 'openai',
      apiKey: 'sk-bench',
      customHost: 'http://127.0.0.1:9/v1',
      config: { provider: 'openai', api_key: 'sk-bench' },
      forwardHeaders: {},
    },
    body: BODY,
  };
  bench.add('cache: exact key (canonical JSON + SHA-256)', () => exactKey(input));
  bench.add('cache: semantic key (text + bucket)', () => semanticKey(input));
  const store = new MemoryCacheStore(systemClock, 64 * 1024 * 1024);
  const key = exactKey(input);
  const now = Date.now();
  await store.set(key, { body: COMPLETION_BODY.toString(), storedAt: now, expiresAt: now + 3_600_000 });
  if (!(await store.get(key))) throw new Error('store should hit');
  bench.add('cache: memory store hit', async () => {
    await store.get(key);
  });
  return [];
}
