import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * The shared answer cache on PostgreSQL without Redis (`PostgresCacheStore`, docs/cache.md):
 *
 * - `cache_entries`: one answer per exact key (SHA-256 hex), its JSON bytes, and when it was stored and
 *   expires (ms). Reads check `expires_at`; expired rows are swept in bounded batches (index on `expires_at`).
 * - `cache_vectors`: semantic embeddings, one row per (bucket, exact key), as little-endian float32 bytes.
 *   `seq` orders a bucket newest first (a sequence on PostgreSQL, so ties within one millisecond and
 *   between replicas still have an order); a bucket is trimmed to its newest N rows on every add, and a
 *   lookup reads them through the `(bucket, seq)` index.
 *
 * The tables exist on SQLite too (one migration set) but only the PostgreSQL store uses them; the
 * embedded default keeps its cache in process.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const binary = pg ? 'bytea' : 'blob';
  await db.schema
    .createTable('cache_entries')
    .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('body', binary, (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('stored_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cache_entries_expires').on('cache_entries').column('expires_at').execute();
  await db.schema
    .createTable('cache_vectors')
    .addColumn('bucket', 'varchar(128)', (c) => c.notNull())
    .addColumn('key', 'varchar(128)', (c) => c.notNull())
    .addColumn('seq', pg ? 'bigserial' : 'integer', (c) => (pg ? c : c.notNull().defaultTo(0)))
    .addColumn('vector', binary, (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cache_vectors_pk', ['bucket', 'key'])
    .execute();
  await db.schema.createIndex('cache_vectors_bucket_seq').on('cache_vectors').columns(['bucket', 'seq']).execute();
  await db.schema.createIndex('cache_vectors_expires').on('cache_vectors').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cache_vectors').ifExists().execute();
  await db.schema.dropTable('cache_entries').ifExists().execute();
}
