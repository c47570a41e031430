import type { Generated } from 'kysely';

/** One cached answer (PostgreSQL cache store): its JSON bytes and stored/expiry times (ms). */
export interface CacheEntriesTable {
  key: string;
  body: Uint8Array;
  model: string | null;
  stored_at: number;
  expires_at: number;
}

/** One semantic-cache embedding (little-endian float32 bytes) in a bucket, pointing at an exact key; `seq` orders a bucket. */
export interface CacheVectorsTable {
  bucket: string;
  key: string;
  seq: Generated<number>;
  vector: Uint8Array;
  expires_at: number;
  created_at: number;
}

declare module '../../infra/store/schema.js' {
  /** This slice's tables in the store's assembled database type. */
  interface Database {
    cache_entries: CacheEntriesTable;
    cache_vectors: CacheVectorsTable;
  }
}
