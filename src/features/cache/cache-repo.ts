import { sql } from 'kysely';
import type { Store } from '../../infra/store/store.js';

/** A cached answer row as the PostgreSQL cache store reads it. */
export interface CacheEntryRow {
  body: Buffer;
  model: string | null;
  storedAt: number;
  expiresAt: number;
}

/** A semantic vector row: the exact key it points at, its float32 bytes and expiry. */
export interface CacheVectorRow {
  key: string;
  vector: Buffer;
  expiresAt: number;
}

const asBuffer = (v: Uint8Array): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v));

/** The answer under `key` if it has not expired at `now` (one primary-key lookup). */
export async function readCacheEntry(store: Store, key: string, now: number): Promise<CacheEntryRow | undefined> {
  const row = await store.db
    .selectFrom('cache_entries')
    .select(['body', 'model', 'stored_at', 'expires_at'])
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { body: asBuffer(row.body), model: row.model, storedAt: Number(row.stored_at), expiresAt: Number(row.expires_at) };
}

/** Stores (or replaces) the answer under `key`. */
export async function writeCacheEntry(store: Store, key: string, entry: CacheEntryRow): Promise<void> {
  const values = { body: entry.body, model: entry.model, stored_at: entry.storedAt, expires_at: entry.expiresAt };
  await store.db
    .insertInto('cache_entries')
    .values({ key, ...values })
    .onConflict((oc) => oc.column('key').doUpdateSet(values))
    .execute();
}

/**
 * Adds (or moves to the front) the vector of `key` in `bucket`, then trims the bucket to its newest
 * `keep` rows. On PostgreSQL `seq` comes from its sequence, also on a re-add (the proposed row's default).
 */
export async function addCacheVector(
  store: Store,
  bucket: string,
  key: string,
  vector: Buffer,
  expiresAt: number,
  now: number,
  keep: number,
): Promise<void> {
  await store.db
    .insertInto('cache_vectors')
    .values({ bucket, key, vector, expires_at: expiresAt, created_at: now })
    .onConflict((oc) =>
      oc.columns(['bucket', 'key']).doUpdateSet((eb) => ({
        seq: eb.ref('excluded.seq'),
        vector: eb.ref('excluded.vector'),
        expires_at: eb.ref('excluded.expires_at'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
  await sql`delete from cache_vectors where bucket = ${bucket} and seq < (
      select seq from cache_vectors where bucket = ${bucket} order by seq desc offset ${keep - 1} limit 1)`.execute(store.db);
}

/** The newest `limit` unexpired vectors of `bucket`, newest first (one query on the `(bucket, seq)` index). */
export async function recentCacheVectors(store: Store, bucket: string, now: number, limit: number): Promise<CacheVectorRow[]> {
  const rows = await store.db
    .selectFrom('cache_vectors')
    .select(['key', 'vector', 'expires_at'])
    .where('bucket', '=', bucket)
    .where('expires_at', '>', now)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ key: r.key, vector: asBuffer(r.vector), expiresAt: Number(r.expires_at) }));
}

/** Deletes at most `limit` expired answers and at most `limit` expired vectors; returns how many rows went. */
export async function sweepExpiredCache(store: Store, now: number, limit: number): Promise<{ entries: number; vectors: number }> {
  const entries = await sql`delete from cache_entries where key in (
      select key from cache_entries where expires_at <= ${now} limit ${limit})`.execute(store.db);
  const vectors = await sql`delete from cache_vectors where (bucket, key) in (
      select bucket, key from cache_vectors where expires_at <= ${now} limit ${limit})`.execute(store.db);
  return { entries: Number(entries.numAffectedRows ?? 0), vectors: Number(vectors.numAffectedRows ?? 0) };
}
