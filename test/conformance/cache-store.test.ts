import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { FakeClock } from '../../src/foundation/lib/clock.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import { normalise, type CacheStore, type VectorIndex } from '../../src/features/cache/cache-store.js';
import { MemoryCacheStore, MemoryVectorIndex } from '../../src/features/cache/memory-cache-store.js';
import { RedisCacheStore, RedisVectorIndex } from '../../src/features/cache/redis-cache-store.js';
import { CacheSweeper, PostgresCacheStore, PostgresVectorIndex } from '../../src/features/cache/postgres-cache-store.js';
import { openStore, dropPostgresSchema, type Store } from '../../src/infra/store/store.js';
import type { Database } from '../../src/infra/store/schema.js';
import { createServer, type Server } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PG_URL, REDIS_URL } from '../helpers/gateway.js';

/** One cache backend under test: its store and index on a shared fake clock. */
interface Backend {
  store: CacheStore;
  index: VectorIndex;
  clock: FakeClock;
  /** Backend's own remaining time to live of an answer key, ms (-2 absent), when it has one. */
  ttlOf?(key: string): Promise<number>;
}

let redis: Redis;
/** One PostgreSQL schema for the suite; every backend instance works under its own key/bucket prefix. */
let pgStore: Store;
const pgSchema = `t_${randomId(12).toLowerCase()}`;
beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: false });
  pgStore = await openStore({ kind: 'postgres', url: PG_URL, schema: pgSchema });
});
afterAll(async () => {
  redis.disconnect();
  await pgStore?.close();
  await dropPostgresSchema(PG_URL, pgSchema);
});

/** Keys and buckets under a prefix, so that backend instances sharing one schema do not see each other. */
function prefixed(store: CacheStore, index: VectorIndex, p: string): { store: CacheStore; index: VectorIndex } {
  return {
    store: { kind: store.kind, get: (k) => store.get(p + k), set: (k, e) => store.set(p + k, e) },
    index: {
      add: (b, item) => index.add(p + b, { ...item, key: p + item.key }),
      search: async (b, vec, t) => (await index.search(p + b, vec, t)).map((m) => ({ ...m, key: m.key.slice(p.length) })),
    },
  };
}

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
  {
    name: 'postgres',
    make(perBucket = 8) {
      const clock = new FakeClock(Date.now());
      const p = `${randomId(8)}:`;
      return { clock, ...prefixed(new PostgresCacheStore(pgStore, clock), new PostgresVectorIndex(pgStore, clock, perBucket), p) };
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
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const store = new RedisCacheStore(dead, 'gwtest:', new FakeClock());
    await expect(store.get('k')).rejects.toThrow();
    dead.disconnect();
  });
});

describe('postgres backend specifics', () => {
  it('stores the answer bytes and exact expiry in cache_entries, and reads in one round trip', async () => {
    const clock = new FakeClock(Date.now());
    const store = new PostgresCacheStore(pgStore, clock);
    const key = 'pg-' + randomId(8);
    await store.set(key, { body: '{"a":"ü"}', storedAt: clock.now(), expiresAt: clock.now() + 7_000 });
    const row = await pgStore.db.selectFrom('cache_entries').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    expect(Buffer.from(row.body).toString('utf8')).toBe('{"a":"ü"}');
    expect(row.expires_at).toBe(clock.now() + 7_000);
    expect(row.model).toBeNull();
    expect((await store.get(key))?.model).toBeUndefined();
  });

  it('moves a re-added key to the front of its bucket without duplicating it', async () => {
    const clock = new FakeClock(Date.now());
    const index = new PostgresVectorIndex(pgStore, clock, 3);
    const bucket = 'pg-b-' + randomId(8);
    const exp = clock.now() + 60_000;
    for (const key of ['k1', 'k2', 'k3']) await index.add(bucket, { key, vector: v(1, 0), expiresAt: exp });
    await index.add(bucket, { key: 'k1', vector: v(1, 0), expiresAt: exp }); // k1 newest again
    await index.add(bucket, { key: 'k4', vector: v(1, 0), expiresAt: exp }); // pushes out k2, the oldest
    const rows = await pgStore.db.selectFrom('cache_vectors').select('key').where('bucket', '=', bucket).orderBy('seq', 'desc').execute();
    expect(rows.map((r) => r.key)).toEqual(['k4', 'k1', 'k3']);
  });

  it('sweeps expired answers and vectors in bounded batches and leaves live ones', async () => {
    const clock = new FakeClock(Date.now());
    const store = new PostgresCacheStore(pgStore, clock);
    const index = new PostgresVectorIndex(pgStore, clock, 10);
    const p = 'sweep-' + randomId(8);
    const now = clock.now();
    for (let i = 0; i < 5; i++) {
      await store.set(`${p}-dead-${i}`, { body: '{}', storedAt: now, expiresAt: now + 1_000 });
      await index.add(p, { key: `${p}-dead-${i}`, vector: v(1, 0), expiresAt: now + 1_000 });
    }
    await store.set(`${p}-live`, { body: '{}', storedAt: now, expiresAt: now + 60_000 });
    await index.add(p, { key: `${p}-live`, vector: v(1, 0), expiresAt: now + 60_000 });
    clock.advance(1_000);
    const count = async () => ({
      entries: (await pgStore.db.selectFrom('cache_entries').select('key').where('key', 'like', `${p}-%`).execute()).length,
      vectors: (await pgStore.db.selectFrom('cache_vectors').select('key').where('bucket', '=', p).execute()).length,
    });
    // Other tests' rows in the schema may be expired too: a batch of 2 removes at most 2 per table.
    const one = await new CacheSweeper(pgStore, clock, () => {}, { batchSize: 2, batches: 1 }).sweep();
    expect(one.entries).toBeLessThanOrEqual(2);
    expect(one.vectors).toBeLessThanOrEqual(2);
    await new CacheSweeper(pgStore, clock, () => {}, { batchSize: 2, batches: 1000 }).sweep();
    expect(await count()).toEqual({ entries: 1, vectors: 1 });
    expect(await store.get(`${p}-live`)).toBeDefined();
  });

  it('throws (for the caller to degrade) when PostgreSQL is unreachable', async () => {
    const dead = deadStore('postgres://postgres@127.0.0.1:1/none');
    await expect(new PostgresCacheStore(dead, new FakeClock()).get('k')).rejects.toThrow();
    await expect(new PostgresVectorIndex(dead, new FakeClock(), 8).search('b', v(1, 0), 0.9)).rejects.toThrow();
    await dead.close();
  });

  it('gives up after timeoutMs when the database does not answer', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server: Server = createServer((s) => sockets.add(s)); // accepts, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const dead = deadStore(`postgres://postgres@127.0.0.1:${port}/none`);
    const started = Date.now();
    await expect(new PostgresCacheStore(dead, new FakeClock(), { timeoutMs: 200 }).get('k')).rejects.toThrow(/longer than 200 ms/);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const s of sockets) s.destroy();
    server.close();
    void dead.close().catch(() => {});
  });
});

/** A Store whose pool points at something that is not a working PostgreSQL. */
function deadStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
