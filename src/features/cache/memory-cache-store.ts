import { LRUCache } from 'lru-cache';
import type { Clock } from '../../foundation/lib/clock.js';
import { cosine, type CacheEntry, type CacheStore, type VectorIndex, type VectorItem, type VectorMatch } from './cache-store.js';

/** Bytes counted per entry besides its text (key, header, bookkeeping). */
const ENTRY_OVERHEAD = 200;

/**
 * The embedded default: an in-process LRU bounded by bytes (answers over a tenth of the bound are not
 * kept). Expiry is checked against the gateway clock on every read.
 */
export class MemoryCacheStore implements CacheStore {
  readonly kind = 'memory' as const;
  private readonly lru: LRUCache<string, CacheEntry>;

  constructor(
    private readonly clock: Clock,
    maxBytes: number,
  ) {
    this.lru = new LRUCache<string, CacheEntry>({
      maxSize: Math.max(1, maxBytes),
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 10)),
      sizeCalculation: (e, key) => e.body.length * 2 + key.length + ENTRY_OVERHEAD,
    });
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const entry = this.lru.get(key);
    if (!entry) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.lru.delete(key);
      return undefined;
    }
    return entry;
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const ttl = entry.expiresAt - this.clock.now();
    if (ttl <= 0) return;
    this.lru.set(key, entry, { ttl: Math.ceil(ttl) });
  }

  /** Bytes currently counted against the bound. */
  get size(): number {
    return this.lru.calculatedSize;
  }
}

/**
 * The in-process semantic index: at most `maxBuckets` buckets (least recently used dropped first),
 * each holding its newest `perBucket` vectors.
 */
export class MemoryVectorIndex implements VectorIndex {
  private readonly buckets: LRUCache<string, VectorItem[]>;

  constructor(
    private readonly clock: Clock,
    private readonly perBucket: number,
    maxBuckets: number,
  ) {
    this.buckets = new LRUCache<string, VectorItem[]>({ max: Math.max(1, maxBuckets) });
  }

  async add(bucket: string, item: VectorItem): Promise<void> {
    const now = this.clock.now();
    const items = (this.buckets.get(bucket) ?? []).filter((i) => i.expiresAt > now && i.key !== item.key);
    items.unshift(item);
    if (items.length > this.perBucket) items.length = this.perBucket;
    this.buckets.set(bucket, items);
  }

  async search(bucket: string, vector: Float32Array, threshold: number): Promise<VectorMatch[]> {
    const items = this.buckets.get(bucket);
    if (!items) return [];
    return rank(items, vector, threshold, this.clock.now());
  }
}

/** Unexpired items scoring at least `threshold`, best first. */
export function rank(items: readonly VectorItem[], vector: Float32Array, threshold: number, now: number): VectorMatch[] {
  const out: VectorMatch[] = [];
  for (const item of items) {
    if (item.expiresAt <= now) continue;
    const score = cosine(item.vector, vector);
    if (score >= threshold) out.push({ key: item.key, score });
  }
  return out.sort((a, b) => b.score - a.score);
}
