import { sql, type Kysely } from 'kysely';

/**
 * Key lifecycle columns of `api_keys`: the previous value's hash and the end of its transition after a
 * rotation (`previous_key_hash`, `key_transition_expires_at`), how the key was made (`creation_mode`,
 * `api` | `auto`), when it last authenticated a request (`last_used_at`), when the schedule rotates it
 * next (`next_rotation_at`), and a value waiting to be shown once (`pending_key_ciphertext`, sealed by
 * the gateway's secret box; `pending_key_revealed_at` once shown). Rotations recorded by the earlier
 * shape (in `metadata.previous_key_*`) move into the columns.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('api_keys').addColumn('previous_key_hash', 'varchar(128)').execute();
  await db.schema.alterTable('api_keys').addColumn('key_transition_expires_at', 'bigint').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('creation_mode', 'varchar(16)', (c) => c.notNull().defaultTo('api'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('next_rotation_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('pending_key_ciphertext', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('pending_key_revealed_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_next_rotation').on('api_keys').column('next_rotation_at').execute();
  const rotated = await sql<{
    id: string;
    metadata: string;
  }>`select id, metadata from api_keys where metadata like '%previous_key_hash%'`.execute(db);
  for (const row of rotated.rows) {
    const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
    const hash = metadata.previous_key_hash;
    const until = Number(metadata.previous_key_valid_until);
    delete metadata.previous_key_hash;
    delete metadata.previous_key_valid_until;
    const live = typeof hash === 'string' && Number.isFinite(until);
    await sql`update api_keys set metadata = ${JSON.stringify(metadata)}, previous_key_hash = ${live ? hash : null}, key_transition_expires_at = ${live ? until : null} where id = ${row.id}`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_next_rotation').execute();
  for (const column of [
    'pending_key_revealed_at',
    'pending_key_ciphertext',
    'next_rotation_at',
    'last_used_at',
    'creation_mode',
    'key_transition_expires_at',
    'previous_key_hash',
  ]) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
