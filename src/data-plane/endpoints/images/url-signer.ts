import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../../foundation/lib/private-files.js';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

/**
 * Signs and checks expiring links: `sig` = base64url(HMAC-SHA256(key, "<id>.<expires>")), `expires`
 * in Unix seconds.
 */
export class UrlSigner {
  /** The key links are signed with, then the one it replaced (links it signed still verify). */
  private keys: Buffer[];

  constructor(key: Buffer) {
    this.keys = [key];
  }

  /** Signs with `key` from now on (the replica's own key gives way to the shared one once Redis answers); the previous key still verifies. */
  adopt(key: Buffer): void {
    if (!this.keys[0]!.equals(key)) this.keys = [key, this.keys[0]!];
  }

  sign(id: string, expires: number): string {
    return signWith(this.keys[0]!, id, expires);
  }

  /** `expired` once `expires` is past, `bad` when the signature matches no key, else `ok`. */
  verify(id: string, expires: number, sig: string, nowMs: number): 'ok' | 'expired' | 'bad' {
    const got = Buffer.from(sig);
    const matches = this.keys.some((key) => {
      const want = Buffer.from(signWith(key, id, expires));
      return want.length === got.length && timingSafeEqual(want, got);
    });
    if (!matches) return 'bad';
    return expires * 1000 <= nowMs ? 'expired' : 'ok';
  }
}

function signWith(key: Buffer, id: string, expires: number): string {
  return createHmac('sha256', key).update(`${id}.${expires}`).digest('base64url');
}

/** The key every replica shares in Redis (created once with SET NX), or null when Redis has none to give. */
export async function sharedSigningKey(redis: Redis, redisKey: string): Promise<Buffer | null> {
  await redis.set(redisKey, randomBytes(32).toString('hex'), 'NX');
  const shared = await redis.get(redisKey);
  return shared ? Buffer.from(shared, 'utf8') : null;
}

/** Name of the key file in the data directory. */
export const SIGNING_KEY_FILE = 'url-signing-key';

/**
 * The signing key, in order: `GATEWAY_URL_SIGNING_KEY`; with Redis, one key shared by every replica
 * (created once with SET NX); else (or while Redis cannot be reached: `onRedisError` is told, and the
 * caller adopts the shared key once Redis answers) a key generated once and kept in
 * `$GATEWAY_DATA_DIR/url-signing-key` (mode 0600), so links survive restarts.
 */
export async function loadSigningKey(opts: {
  configured?: string;
  dataDir: string;
  redis: Redis | null;
  redisKey: string;
  onRedisError?: (err: unknown) => void;
}): Promise<Buffer> {
  if (opts.configured) return Buffer.from(opts.configured, 'utf8');
  if (opts.redis) {
    try {
      const shared = await sharedSigningKey(opts.redis, opts.redisKey);
      if (shared) return shared;
    } catch (err) {
      if (!opts.onRedisError) throw err;
      opts.onRedisError(err);
    }
  }
  const file = join(opts.dataDir, SIGNING_KEY_FILE);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing) return Buffer.from(existing, 'utf8');
  } catch {
    // absent: generated below
  }
  const fresh = randomBytes(32).toString('hex');
  mkdirSync(opts.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileSync(file, fresh + '\n', { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
  return Buffer.from(fresh, 'utf8');
}
