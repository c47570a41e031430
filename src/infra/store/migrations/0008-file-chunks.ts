import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Content of gateway-stored files kept in the database (`DatabaseFileStorage`), so that every replica
 * sharing PostgreSQL reads the same files. One row per chunk of at most 1 MiB, keyed by
 * `(file_id, seq)`. Rows being written carry `pending_since` (ms) under a temporary id and are renamed
 * to the file's key in one statement when the upload completes; leftovers of a crashed writer are
 * swept by age. The binary column is `bytea` on PostgreSQL and `blob` on SQLite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('file_chunks')
    .addColumn('file_id', 'varchar(160)', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', binary, (c) => c.notNull())
    .addColumn('pending_since', 'bigint')
    .addPrimaryKeyConstraint('file_chunks_pk', ['file_id', 'seq'])
    .execute();
  await db.schema.createIndex('file_chunks_pending').on('file_chunks').column('pending_since').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('file_chunks').ifExists().execute();
}
