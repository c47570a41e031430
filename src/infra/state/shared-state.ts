import type { Redis } from 'ioredis';
import type { CircuitStore } from './circuit-store.js';
import type { PubSub } from './pubsub.js';
import { MemoryCircuitStore } from './memory-circuit-store.js';
import { RedisCircuitStore } from './redis-circuit-store.js';
import { MemoryPubSub, RedisPubSub } from './pubsub.js';

/**
 * Everything replicas share: circuits, pub/sub, and the Redis handle (null in the embedded default)
 * that caches and rate-limit counters build on.
 */
export interface SharedState {
  readonly redis: Redis | null;
  /** Key prefix for everything this gateway writes to Redis. */
  readonly prefix: string;
  readonly circuits: CircuitStore;
  readonly pubsub: PubSub;
  close(): Promise<void>;
}

/** In-process state (no Redis). */
export function memoryState(): SharedState {
  const circuits = new MemoryCircuitStore();
  const pubsub = new MemoryPubSub();
  return {
    redis: null,
    prefix: 'gw:',
    circuits,
    pubsub,
    close: async () => {
      await circuits.close();
      await pubsub.close();
    },
  };
}

/** Redis-backed state shared by replicas. */
export function redisState(redis: Redis, prefix = 'gw:'): SharedState {
  const circuits = new RedisCircuitStore(redis, prefix + 'cb:');
  const pubsub = new RedisPubSub(redis, prefix);
  return {
    redis,
    prefix,
    circuits,
    pubsub,
    close: async () => {
      await pubsub.close();
      redis.disconnect();
    },
  };
}
