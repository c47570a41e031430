import type { Kysely } from 'kysely';

/** Rate-limit policies (issue 8): one row per policy, conditions and group_by as JSON text. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limit_policies')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('unit', 'varchar(8)', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('conditions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('group_by', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_policies_ws_status').on('rate_limit_policies').columns(['workspace_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limit_policies').ifExists().execute();
}
