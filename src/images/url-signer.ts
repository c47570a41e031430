import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

/**
 * Signs and checks expiring links: `sig` = base64url(HMAC-SHA256(key, "<id>.<expires>")), `expires`
 * in Unix seconds.
 */
export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  sign(id: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${id}.${expires}`).digest('base64url');
  }

  /** `expired` once `expires` is past, `bad` when the signature does not match, else `ok`. */
  verify(id: string, expires: number, sig: string, nowMs: number): 'ok' | 'expired' | 'bad' {
    const want = Buffer.from(this.sign(id, expires));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'bad';
    return expires * 1000 <= nowMs ? 'expired' : 'ok';
  }
}

/** Name of the key file in the data directory. */
export const SIGNING_KEY_FILE = 'url-signing-key';

/**
 * The signing key, in order: `GATEWAY_URL_SIGNING_KEY`; with Redis, one key shared by every replica
 * (created once with SET NX); else a key generated once and kept in `$GATEWAY_DATA_DIR/url-signing-key`
 * (mode 0600), so links survive restarts.
 */
export async function loadSigningKey(opts: { configured?: string; dataDir: string; redis: Redis | null; redisKey: string }): Promise<Buffer> {
  if (opts.configured) return Buffer.from(opts.configured, 'utf8');
  if (opts.redis) {
    await opts.redis.set(opts.redisKey, randomBytes(32).toString('hex'), 'NX');
    const shared = await opts.redis.get(opts.redisKey);
    if (shared) return Buffer.from(shared, 'utf8');
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
