import type { Kysely } from 'kysely';

/**
 * Stored responses (issue 9, Responses API): one row per response created with `store` on, its
 * response object and its input items as JSON text, scoped to the workspace that created it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('responses')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('mode', 'varchar(16)', (c) => c.notNull())
    .addColumn('provider', 'varchar(64)')
    .addColumn('previous_response_id', 'varchar(64)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('input_items', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('responses_ws_created').on('responses').columns(['workspace_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('responses').ifExists().execute();
}
