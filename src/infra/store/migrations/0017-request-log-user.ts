import type { Kysely } from 'kysely';

/**
 * `request_logs.user_id`: the user whose credential (a `workspace-user` key today; sessions and JWTs
 * later) authenticated the request, null for service keys. Log visibility ("own" requests) and the
 * `user_id` filter of `GET /v1/logs` read it; rows written before it stay null (nobody's own).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('user_id', 'varchar(64)').execute();
  await db.schema
    .createIndex('request_logs_ws_user_created')
    .on('request_logs')
    .columns(['workspace_id', 'user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_logs_ws_user_created').execute();
  await db.schema.alterTable('request_logs').dropColumn('user_id').execute();
}
