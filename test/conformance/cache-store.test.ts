import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { FakeClock } from '../../src/lib/clock.js';
import { randomId } from '../../src/lib/ids.js';
import { normalise, type CacheStore, type VectorIndex } from '../../src/cache/cache-store.js';
import { MemoryCacheStore, MemoryVectorIndex } from '../../src/cache/memory-cache-store.js';
import { RedisCacheStore, RedisVectorIndex } from '../../src/cache/redis-cache-store.js';
import { REDIS_URL } from '../helpers/gateway.js';

/** One cache backend under test: its store and index on a shared fake clock. */
interface Backend {
  store: CacheStore;
  index: VectorIndex;
  clock: FakeClock;
  /** Backend's own remaining time to live of an answer key, ms (-2 absent), when it has one. */
  ttlOf?(key: string): Promise<number>;
}

let redis: Redis;
beforeAll(() => {
  redis = new Redis(REDIS_URL, { lazyConnect: false });
});
afterAll(() => redis.disconnect());

const BACKENDS: Array<{ name: string; make(perBucket?: number): Backend }> = [
  {
    name: 'memory',
    make(perBucket = 8) {
      const clock = new FakeClock();
      return { clock, store: new MemoryCacheStore(clock, 1024 * 1024), index: new MemoryVectorIndex(clock, perBucket, 100) };
    },
  },
  {
    name: 'redis',
    make(perBucket = 8) {
      const clock = new FakeClock(Date.now());
      const prefix = `gwtest:${randomId(8)}:`;
      return {
        clock,
        store: new RedisCacheStore(redis, prefix, clock),
        index: new RedisVectorIndex(redis, prefix, clock, perBucket),
        ttlOf: (key) => redis.pttl(prefix + 'cache:a:' + key),
      };
    },
  },
];

const v = (...xs: number[]) => normalise(xs);

describe.each(BACKENDS)('cache backend conformance: $name', ({ make }) => {
  it('returns what was stored, byte for byte, and nothing for an unknown key', async () => {
    const b = make();
    const body = JSON.stringify({ id: 'chatcmpl-1', choices: [{ message: { content: 'héllo ✓ "quoted"\nline' } }] });
    await b.store.set('k1', { body, model: 'gpt-4o', storedAt: b.clock.now(), expiresAt: b.clock.now() + 60_000 });
    const got = await b.store.get('k1');
    expect(got).toEqual({ body, model: 'gpt-4o', storedAt: b.clock.now(), expiresAt: b.clock.now() + 60_000 });
    expect(await b.store.get('k2')).toBeUndefined();
  });

  it('honours the stored expiry exactly: served 1 ms before, gone at expiresAt', async () => {
    const b = make();
    const now = b.clock.now();
    await b.store.set('k', { body: '{}', storedAt: now, expiresAt: now + 10_000 });
    b.clock.advance(9_999);
    expect(await b.store.get('k')).toBeDefined();
    b.clock.advance(1);
    expect(await b.store.get('k')).toBeUndefined();
  });

  it('does not store an entry that has already expired', async () => {
    const b = make();
    const now = b.clock.now();
    await b.store.set('old', { body: '{}', storedAt: now - 2000, expiresAt: now - 1 });
    b.clock.set(now - 1000);
    expect(await b.store.get('old')).toBeUndefined();
  });

  it('overwrites an entry under the same key', async () => {
    const b = make();
    const now = b.clock.now();
    await b.store.set('k', { body: '"a"', storedAt: now, expiresAt: now + 1000 });
    await b.store.set('k', { body: '"b"', storedAt: now, expiresAt: now + 5000 });
    expect((await b.store.get('k'))?.body).toBe('"b"');
  });

  it('finds vectors at or above the threshold, best first, and none below', async () => {
    const b = make();
    const exp = b.clock.now() + 60_000;
    await b.index.add('bucket', { key: 'a', vector: v(1, 0, 0), expiresAt: exp });
    await b.index.add('bucket', { key: 'b', vector: v(0.96, 0.28, 0), expiresAt: exp });
    await b.index.add('bucket', { key: 'c', vector: v(0, 1, 0), expiresAt: exp });
    const hits = await b.index.search('bucket', v(1, 0, 0), 0.95);
    expect(hits.map((h) => h.key)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(0.96, 4);
    expect(await b.index.search('bucket', v(1, 0, 0), 0.97)).toHaveLength(1);
    expect(await b.index.search('bucket', v(0, 0, 1), 0.5)).toEqual([]);
  });

  it('keeps buckets apart and skips expired vectors', async () => {
    const b = make();
    const now = b.clock.now();
    await b.index.add('one', { key: 'a', vector: v(1, 0), expiresAt: now + 1000 });
    await b.index.add('one', { key: 'b', vector: v(1, 0.01), expiresAt: now + 5000 });
    expect(await b.index.search('two', v(1, 0), 0.5)).toEqual([]);
    b.clock.advance(1000);
    expect((await b.index.search('one', v(1, 0), 0.5)).map((h) => h.key)).toEqual(['b']);
  });

  it('bounds a bucket to its newest vectors', async () => {
    const b = make(3);
    const exp = b.clock.now() + 60_000;
    for (const key of ['k1', 'k2', 'k3', 'k4', 'k5']) await b.index.add('bucket', { key, vector: v(1, 0), expiresAt: exp });
    expect((await b.index.search('bucket', v(1, 0), 0.9)).map((h) => h.key).sort()).toEqual(['k3', 'k4', 'k5']);
  });

  it('keeps float32 vectors of realistic size precise enough to rank', async () => {
    const b = make();
    const base = Array.from({ length: 1536 }, (_, i) => Math.sin(i));
    const near = base.map((x, i) => x + (i % 7 === 0 ? 0.05 : 0));
    await b.index.add('big', { key: 'near', vector: normalise(near), expiresAt: b.clock.now() + 60_000 });
    const [hit] = await b.index.search('big', normalise(base), 0.9);
    let dot = 0;
    const nb = normalise(base);
    const nn = normalise(near);
    for (let i = 0; i < nb.length; i++) dot += nb[i]! * nn[i]!;
    expect(hit?.key).toBe('near');
    expect(hit!.score).toBeCloseTo(dot, 5);
  });
});

describe('redis backend specifics', () => {
  it('sets the key TTL to max_age exactly (PX) and writes under the prefix', async () => {
    const b = BACKENDS[1]!.make();
    const now = b.clock.now();
    await b.store.set('ttl', { body: '{}', storedAt: now, expiresAt: now + 7_000 });
    const ttl = await b.ttlOf!('ttl');
    expect(ttl).toBeGreaterThan(6_900);
    expect(ttl).toBeLessThanOrEqual(7_000);
  });

  it('lets Redis drop the key when max_age has passed in real time', async () => {
    const b = BACKENDS[1]!.make();
    const clock = b.clock;
    clock.set(Date.now());
    await b.store.set('short', { body: '{}', storedAt: clock.now(), expiresAt: clock.now() + 50 });
    await new Promise((r) => setTimeout(r, 120));
    expect(await b.ttlOf!('short')).toBe(-2);
  });

  it('throws (for the caller to degrade) when Redis is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => {});
    const store = new RedisCacheStore(dead, 'gwtest:', new FakeClock());
    await expect(store.get('k')).rejects.toThrow();
    dead.disconnect();
  });
});
