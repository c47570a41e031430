import type { Redis } from 'ioredis';
import type { Clock } from '../../foundation/lib/clock.js';
import {
  decodeEntry,
  encodeEntry,
  type CacheEntry,
  type CacheStore,
  type VectorIndex,
  type VectorItem,
  type VectorMatch,
} from './cache-store.js';
import { rank } from './memory-cache-store.js';

/**
 * Answers in Redis, shared by every replica with the same `REDIS_URL` and `REDIS_PREFIX`:
 * one string per answer at `<prefix>cache:a:<key>`, `SET … PX <max_age in ms>`. The stored expiry is
 * checked on read too, so an answer is never served past `max_age` whatever Redis's clock does.
 */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const text = await this.redis.get(this.prefix + 'cache:a:' + key);
    if (text === null) return undefined;
    const entry = decodeEntry(text);
    if (!entry || this.clock.now() >= entry.expiresAt) return undefined;
    return entry;
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const ttl = Math.ceil(entry.expiresAt - this.clock.now());
    if (ttl <= 0) return;
    await this.redis.set(this.prefix + 'cache:a:' + key, encodeEntry(entry), 'PX', ttl);
  }
}

/**
 * The shared semantic index: one Redis list per bucket at `<prefix>cache:s:<bucket>`, newest first,
 * trimmed to `perBucket` items; each item is `<expiresAt>|<key>|<base64 float32 vector>`. The list
 * lives as long as its longest-lived item. A search reads the whole (bounded) list and ranks it here.
 */
export class RedisVectorIndex implements VectorIndex {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly perBucket: number,
  ) {}

  async add(bucket: string, item: VectorItem): Promise<void> {
    const ttl = Math.ceil(item.expiresAt - this.clock.now());
    if (ttl <= 0) return;
    const list = this.prefix + 'cache:s:' + bucket;
    const bytes = Buffer.alloc(item.vector.length * 4);
    for (let i = 0; i < item.vector.length; i++) bytes.writeFloatLE(item.vector[i]!, i * 4);
    const vector = bytes.toString('base64');
    const results = await this.redis
      .multi()
      .lpush(list, `${item.expiresAt}|${item.key}|${vector}`)
      .ltrim(list, 0, this.perBucket - 1)
      .pexpire(list, ttl, 'NX')
      .pexpire(list, ttl, 'GT')
      .exec();
    for (const [err] of results ?? []) if (err) throw err;
  }

  async search(bucket: string, vector: Float32Array, threshold: number): Promise<VectorMatch[]> {
    const raw = await this.redis.lrange(this.prefix + 'cache:s:' + bucket, 0, this.perBucket - 1);
    const items: VectorItem[] = [];
    for (const line of raw) {
      const item = parseItem(line);
      if (item) items.push(item);
    }
    return rank(items, vector, threshold, this.clock.now());
  }
}

function parseItem(line: string): VectorItem | undefined {
  const a = line.indexOf('|');
  const b = line.indexOf('|', a + 1);
  if (a < 0 || b < 0) return undefined;
  const expiresAt = Number(line.slice(0, a));
  const bytes = Buffer.from(line.slice(b + 1), 'base64');
  if (!Number.isFinite(expiresAt) || bytes.length % 4 !== 0) return undefined;
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return { key: line.slice(a + 1, b), vector, expiresAt };
}
