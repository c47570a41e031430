import type { Kysely } from 'kysely';

/**
 * Console sessions (`POST /v1/auth/login`): one row per session with the SHA-256 of its cookie token
 * (never the token), its user and organisation, when it started, when it ends (login time plus the
 * organisation's `max_session_ttl` then) and when it was revoked (logout, user deleted or deactivated).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
}
