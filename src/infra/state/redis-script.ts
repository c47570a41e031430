import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by its SHA-1 (`EVALSHA`, hashed once), sent whole (`EVAL`) only when the server
 * does not have it yet (`NOSCRIPT`: first use, or after a restart or `SCRIPT FLUSH`).
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script on `redis` with these keys and arguments; other errors are thrown as they come. */
  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!/NOSCRIPT/.test((err as Error)?.message ?? '')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
