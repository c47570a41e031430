import type { Kysely } from 'kysely';

/**
 * Usage-limit policies (issue 19): one row per policy, conditions and group_by as JSON text.
 * `next_usage_reset_at` is the stored anchor of the reset schedule (UTC midnight, ms since the epoch).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_limit_policies')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('credit_limit', 'double precision', (c) => c.notNull())
    .addColumn('alert_threshold', 'double precision')
    .addColumn('periodic_reset', 'varchar(16)')
    .addColumn('periodic_reset_days', 'integer')
    .addColumn('next_usage_reset_at', 'bigint')
    .addColumn('conditions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('group_by', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('usage_limit_policies_ws_status').on('usage_limit_policies').columns(['workspace_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_limit_policies').ifExists().execute();
}
