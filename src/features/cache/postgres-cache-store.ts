import type { Clock } from '../../foundation/lib/clock.js';
import type { Store } from '../../infra/store/store.js';
import { addCacheVector, readCacheEntry, recentCacheVectors, sweepExpiredCache, writeCacheEntry } from './cache-repo.js';
import {
  vectorFromBytes,
  vectorToBytes,
  type CacheEntry,
  type CacheStore,
  type VectorIndex,
  type VectorItem,
  type VectorMatch,
} from './cache-store.js';
import { rank } from './memory-cache-store.js';

/** Tuning of the PostgreSQL cache backend. */
export interface PostgresCacheOptions {
  /** Bound of one cache query, ms: past it the operation fails (a read becomes a MISS). Default 1,000. */
  timeoutMs?: number;
}

/**
 * Answers in PostgreSQL (table `cache_entries`), shared by every replica on the same database and
 * schema when there is no Redis. A read is one primary-key lookup that also checks `expires_at`
 * against the gateway clock, so expiry is exact; expired rows are removed later by {@link CacheSweeper}.
 * Every query is bounded by `timeoutMs` so that a slow or unreachable database degrades to a MISS
 * instead of holding the request (the pool is the store's, shared with the rest of the gateway).
 */
export class PostgresCacheStore implements CacheStore {
  readonly kind = 'postgres' as const;
  private readonly timeoutMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    opts: PostgresCacheOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 1000;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const row = await bounded(readCacheEntry(this.store, key, this.clock.now()), this.timeoutMs, 'cache read');
    if (!row) return undefined;
    return { body: row.body.toString('utf8'), model: row.model ?? undefined, storedAt: row.storedAt, expiresAt: row.expiresAt };
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    if (entry.expiresAt <= this.clock.now()) return;
    const row = { body: Buffer.from(entry.body, 'utf8'), model: entry.model ?? null, storedAt: entry.storedAt, expiresAt: entry.expiresAt };
    await bounded(writeCacheEntry(this.store, key, row), this.timeoutMs, 'cache write');
  }
}

/**
 * The semantic index in PostgreSQL (table `cache_vectors`): per bucket, its newest `perBucket`
 * vectors (trimmed on every add). A search is one indexed query for the bucket's unexpired rows,
 * ranked here by cosine similarity, exactly like the Redis and in-process indexes.
 */
export class PostgresVectorIndex implements VectorIndex {
  private readonly timeoutMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly perBucket: number,
    opts: PostgresCacheOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 1000;
  }

  async add(bucket: string, item: VectorItem): Promise<void> {
    const now = this.clock.now();
    if (item.expiresAt <= now) return;
    await bounded(
      addCacheVector(this.store, bucket, item.key, vectorToBytes(item.vector), item.expiresAt, now, this.perBucket),
      this.timeoutMs,
      'vector write',
    );
  }

  async search(bucket: string, vector: Float32Array, threshold: number): Promise<VectorMatch[]> {
    const now = this.clock.now();
    const rows = await bounded(recentCacheVectors(this.store, bucket, now, this.perBucket), this.timeoutMs, 'semantic search');
    const items: VectorItem[] = [];
    for (const r of rows) {
      const v = vectorFromBytes(r.vector);
      if (v) items.push({ key: r.key, vector: v, expiresAt: r.expiresAt });
    }
    return rank(items, vector, threshold, now);
  }
}

/**
 * Removes expired answers and vectors off the request path: every `intervalMs` (unref'd timer), at
 * most `batches` deletes of at most `batchSize` rows per table. Every replica sweeps; they only
 * compete for rows that are already dead.
 */
export class CacheSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
    private readonly opts: { intervalMs?: number; batchSize?: number; batches?: number } = {},
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 60_000);
    this.timer.unref();
  }

  /** One sweep now (skipped while another runs); returns the rows removed. */
  async sweep(): Promise<{ entries: number; vectors: number }> {
    const size = this.opts.batchSize ?? 1000;
    const total = { entries: 0, vectors: 0 };
    for (let i = 0; i < (this.opts.batches ?? 10); i++) {
      const n = await sweepExpiredCache(this.store, this.clock.now(), size);
      total.entries += n.entries;
      total.vectors += n.vectors;
      if (n.entries < size && n.vectors < size) break;
    }
    return total;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.sweep()
      .then(() => undefined, this.onError)
      .finally(() => (this.running = undefined));
    await this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

/** `p`, or a rejection after `ms` (the query itself is left to finish or fail on its own). */
function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  p.catch(() => {}); // a late failure after the timeout must not be unhandled
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
