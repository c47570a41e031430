import { Redis } from 'ioredis';

/**
 * Opens the shared Redis connection from REDIS_URL. Commands fail fast while Redis is down
 * (no offline queue), so callers can degrade instead of hanging.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => {});
  return redis;
}
