import { sql, type Kysely } from 'kysely';

/**
 * Analytics rollups of the request log (docs/observability.md#rollups).
 *
 * `request_log_rollups`: per minute, hour and day (`bucket_ms`), one row per combination of the
 * dimensions analytics group and filter by — workspace, api key, user, endpoint, provider, model,
 * status, cache status, config, prompt (absent values as '') — with counts and sums. The dimensions
 * are correlated (a key belongs to one workspace and at most one user and calls a few models), so a
 * bucket holds about as many rows as there are key × model × outcome combinations in use.
 *
 * `request_log_latency`: per bucket, one latency histogram per value of each single dimension
 * (`dim` = `all`, `endpoint`, `provider`, `model`, `status`, `api_key_id`, `config_id`, `prompt_id`):
 * the sum of their sizes grows with the number of values, not with their product.
 *
 * `request_logs.rolled_up`: 1 on rows whose rollups were written with them; the rows already there
 * (and rows written by a replica that predates this migration) read 0 and are added by the backfill
 * job, which walks them with the cursor kept in `request_log_rollup_state`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('request_logs')
    .addColumn('rolled_up', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('request_logs_not_rolled_up')
    .on('request_logs')
    .columns(['created_at', 'id'])
    .where(sql.ref('rolled_up'), '=', 0)
    .execute();
  await db.schema
    .createTable('request_log_rollups')
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('bucket_ms', 'integer', (c) => c.notNull())
    .addColumn('bucket_start', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('api_key_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('endpoint', 'varchar(32)', (c) => c.notNull())
    .addColumn('provider', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('cache_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('config_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('prompt_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('cache_hits', 'bigint', (c) => c.notNull())
    .addColumn('cost', 'double precision', (c) => c.notNull())
    .addColumn('total_tokens', 'bigint', (c) => c.notNull())
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
    .addColumn('latency_sum', 'bigint', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_log_rollups_pk', [
      'organisation_id',
      'bucket_ms',
      'bucket_start',
      'workspace_id',
      'api_key_id',
      'user_id',
      'endpoint',
      'provider',
      'model',
      'status',
      'cache_status',
      'config_id',
      'prompt_id',
    ] as never)
    .execute();
  await db.schema
    .createTable('request_log_latency')
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('bucket_ms', 'integer', (c) => c.notNull())
    .addColumn('dim', 'varchar(16)', (c) => c.notNull())
    .addColumn('bucket_start', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('dim_value', 'text', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('latency_sum', 'bigint', (c) => c.notNull())
    .addColumn('hist', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_log_latency_pk', [
      'organisation_id',
      'bucket_ms',
      'dim',
      'bucket_start',
      'workspace_id',
      'dim_value',
    ] as never)
    .execute();
  await db.schema
    .createTable('request_log_rollup_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('backfill_created_at', 'bigint', (c) => c.notNull())
    .addColumn('backfill_id', 'varchar(64)', (c) => c.notNull())
    .execute();
  await sql`insert into request_log_rollup_state (id, backfill_created_at, backfill_id) values (1, -1, '')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['request_log_rollup_state', 'request_log_latency', 'request_log_rollups']) await db.schema.dropTable(t).execute();
  await db.schema.dropIndex('request_logs_not_rolled_up').execute();
  await db.schema.alterTable('request_logs').dropColumn('rolled_up').execute();
}
