import type { Capability, CoreDeps } from '../../data-plane/pipeline/capability.js';
import { Background } from './background.js';
import type { CacheStore, VectorIndex } from './cache-store.js';
import { createCacheInterceptor } from './cache-interceptor.js';
import { MemoryCacheStore, MemoryVectorIndex } from './memory-cache-store.js';
import { RedisCacheStore, RedisVectorIndex } from './redis-cache-store.js';
import { CacheSweeper, PostgresCacheStore, PostgresVectorIndex } from './postgres-cache-store.js';
import { LeanCounter } from '../../infra/fast/lean-metrics.js';
import type { CacheStatus } from '../../routing/outcome.js';

/** Where the cache keeps answers and vectors. */
export type CacheBackend = 'memory' | 'redis' | 'postgres';

/** Tuning of the cache capability; every field has a default. */
export interface CacheOptions {
  /** Vectors kept per semantic bucket (newest first). Default 256. */
  vectorsPerBucket?: number;
  /** In-process index only: buckets kept (least recently used dropped). Default 10,000. */
  maxBuckets?: number;
  /** Bound of one embedding call, ms. Default 5,000. */
  embedTimeoutMs?: number;
  /** Overrides `SEMANTIC_CACHE_THRESHOLD`. */
  threshold?: number;
  /** Overrides the choice of {@link cacheBackend} (tests; `redis` needs REDIS_URL, `postgres` a PostgreSQL store). */
  backend?: CacheBackend;
  /** PostgreSQL backend: bound of one cache query, ms (default 1,000), and the sweep of expired rows. */
  postgres?: { timeoutMs?: number; sweepIntervalMs?: number; sweepBatchSize?: number };
}

/**
 * Redis when `REDIS_URL` is set (fastest shared backend); otherwise PostgreSQL when the store is
 * PostgreSQL (replicas sharing the database share the cache); otherwise the in-process default.
 */
export function cacheBackend(hasRedis: boolean, dialect: 'sqlite' | 'postgres'): CacheBackend {
  if (hasRedis) return 'redis';
  return dialect === 'postgres' ? 'postgres' : 'memory';
}

/** The cache capability plus `settle()`, which waits for its background writes (tests, shutdown). */
export interface CacheCapability extends Capability {
  settle(timeoutMs?: number): Promise<void>;
}

/**
 * Simple and semantic caching of answers (issue 5), as one leaf interceptor. Backends: the in-process
 * LRU and index by default; Redis (answers and vectors, shared by replicas) when `REDIS_URL` is set;
 * PostgreSQL (shared too) when the store is PostgreSQL and there is no Redis.
 * @see docs/cache.md
 */
export function cacheCapability(opts: CacheOptions = {}): CacheCapability {
  const background = new Background();
  return {
    name: 'cache',
    settle: (timeoutMs) => background.settle(timeoutMs),
    create(core: CoreDeps) {
      const { state, clock, settings, logger, metrics } = core;
      const perBucket = opts.vectorsPerBucket ?? 256;
      const backend = opts.backend ?? cacheBackend(state.redis !== null, core.store.dialect);
      if (backend === 'redis' && !state.redis) throw new Error('cache backend redis needs REDIS_URL');
      if (backend === 'postgres' && core.store.dialect !== 'postgres') throw new Error('cache backend postgres needs a PostgreSQL store');
      const degraded = (what: string, err: unknown) => {
        metrics.warnings.inc({ component: 'cache' });
        logger.warn({ err: (err as Error)?.message ?? String(err), backend }, `cache ${what} failed; answering without the cache`);
      };
      const pgOpts = { timeoutMs: opts.postgres?.timeoutMs };
      let store: CacheStore;
      let index: VectorIndex;
      let sweeper: CacheSweeper | undefined;
      if (backend === 'redis') {
        store = new RedisCacheStore(state.redis!, state.prefix, clock);
        index = new RedisVectorIndex(state.redis!, state.prefix, clock, perBucket);
      } else if (backend === 'postgres') {
        store = new PostgresCacheStore(core.store, clock, pgOpts);
        index = new PostgresVectorIndex(core.store, clock, perBucket, pgOpts);
        sweeper = new CacheSweeper(core.store, clock, (err) => degraded('sweep', err), {
          intervalMs: opts.postgres?.sweepIntervalMs,
          batchSize: opts.postgres?.sweepBatchSize,
        });
      } else {
        store = new MemoryCacheStore(clock, settings.cacheMaxBytes);
        index = new MemoryVectorIndex(clock, perBucket, opts.maxBuckets ?? 10_000);
      }
      // Counted on every answer, a leaf without a cache too (DISABLED): one label object per status, found by identity
      // (prom-client's Counter built and hashed a label key per request: ~0.5 µs of a chat request's CPU).
      const lookups = new LeanCounter(
        'gateway_cache_lookups_total',
        'Answers by x-gateway-cache-status (HIT, SEMANTIC HIT, MISS, REFRESH, DISABLED).',
        ['status'],
        metrics.registry,
      );
      const byStatus = new Map<CacheStatus, { status: string }>();
      const labelsOf = (status: CacheStatus) => {
        let labels = byStatus.get(status);
        if (!labels) byStatus.set(status, (labels = { status }));
        return labels;
      };
      const interceptor = createCacheInterceptor({
        store,
        index,
        clock,
        http: core.http,
        background,
        embeddingModel: settings.semanticCacheEmbeddingModel,
        threshold: opts.threshold ?? settings.semanticCacheThreshold,
        embedTimeoutMs: opts.embedTimeoutMs ?? 5000,
        observe: (status) => lookups.inc(labelsOf(status)),
        degraded,
      });
      return {
        interceptors: [interceptor],
        start: () => sweeper?.start(),
        close: async () => {
          await background.settle();
          await sweeper?.stop();
        },
      };
    },
  };
}
