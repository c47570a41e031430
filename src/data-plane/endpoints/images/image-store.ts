import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';

/** One stored image. */
export interface StoredImage {
  bytes: Buffer;
  contentType: string;
}

/** Where images a provider returned inline wait to be fetched through their signed URL. */
export interface ImageStore {
  put(id: string, image: StoredImage, ttlMs: number): Promise<void>;
  get(id: string): Promise<StoredImage | undefined>;
}

/**
 * In-process store: an LRU bounded by total bytes; entries also expire after their TTL. Images are
 * visible only to the replica that stored them.
 */
export class MemoryImageStore implements ImageStore {
  private readonly lru: LRUCache<string, StoredImage>;

  constructor(maxBytes: number) {
    this.lru = new LRUCache<string, StoredImage>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (v) => Math.max(1, v.bytes.length),
      ttlAutopurge: false,
    });
  }

  async put(id: string, image: StoredImage, ttlMs: number): Promise<void> {
    this.lru.set(id, image, { ttl: ttlMs });
  }

  async get(id: string): Promise<StoredImage | undefined> {
    return this.lru.get(id);
  }
}

/**
 * Redis store shared by replicas: one key per image (`<prefix>img:<id>`) holding `<content-type>\n<bytes>`,
 * expiring with the link.
 */
export class RedisImageStore implements ImageStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async put(id: string, image: StoredImage, ttlMs: number): Promise<void> {
    const value = Buffer.concat([Buffer.from(image.contentType + '\n', 'utf8'), image.bytes]);
    await this.redis.set(this.prefix + 'img:' + id, value, 'PX', ttlMs);
  }

  async get(id: string): Promise<StoredImage | undefined> {
    const value = await this.redis.getBuffer(this.prefix + 'img:' + id);
    if (!value) return undefined;
    const nl = value.indexOf(10);
    if (nl < 0) return undefined;
    return { contentType: value.subarray(0, nl).toString('utf8'), bytes: value.subarray(nl + 1) };
  }
}
