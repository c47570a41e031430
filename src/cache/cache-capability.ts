import { Counter } from 'prom-client';
import type { Capability, CoreDeps } from '../server/capability.js';
import { Background } from './background.js';
import type { CacheStore, VectorIndex } from './cache-store.js';
import { createCacheInterceptor } from './cache-interceptor.js';
import { MemoryCacheStore, MemoryVectorIndex } from './memory-cache-store.js';
import { RedisCacheStore, RedisVectorIndex } from './redis-cache-store.js';

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
}

/** The cache capability plus `settle()`, which waits for its background writes (tests, shutdown). */
export interface CacheCapability extends Capability {
  settle(timeoutMs?: number): Promise<void>;
}

/**
 * Simple and semantic caching of answers (issue 5), as one leaf interceptor. Backends: the in-process
 * LRU and index by default; Redis (answers and vectors, shared by replicas) when `REDIS_URL` is set.
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
      const store: CacheStore = state.redis ? new RedisCacheStore(state.redis, state.prefix, clock) : new MemoryCacheStore(clock, settings.cacheMaxBytes);
      const index: VectorIndex = state.redis
        ? new RedisVectorIndex(state.redis, state.prefix, clock, perBucket)
        : new MemoryVectorIndex(clock, perBucket, opts.maxBuckets ?? 10_000);
      const lookups = new Counter({
        name: 'gateway_cache_lookups_total',
        help: 'Answers by x-gateway-cache-status (HIT, SEMANTIC HIT, MISS, REFRESH, DISABLED).',
        labelNames: ['status'] as const,
        registers: [metrics.registry],
      });
      const interceptor = createCacheInterceptor({
        store,
        index,
        clock,
        http: core.http,
        background,
        embeddingModel: settings.semanticCacheEmbeddingModel,
        threshold: opts.threshold ?? settings.semanticCacheThreshold,
        embedTimeoutMs: opts.embedTimeoutMs ?? 5000,
        observe: (status) => lookups.inc({ status }),
        degraded: (what, err) => {
          metrics.warnings.inc({ component: 'cache' });
          logger.warn({ err: (err as Error)?.message ?? String(err), backend: store.kind }, `cache ${what} failed; answering without the cache`);
        },
      });
      return { interceptors: [interceptor], close: () => background.settle() };
    },
  };
}
