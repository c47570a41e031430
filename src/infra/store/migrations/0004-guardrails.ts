import type { Kysely } from 'kysely';

/** Stored guardrails (`/v1/guardrails`): checks and actions as JSON text, unique slug per workspace. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('guardrails')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('checks', 'text', (c) => c.notNull())
    .addColumn('actions', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('guardrails_ws_slug', ['workspace_id', 'slug'])
    .execute();
  await db.schema.createIndex('guardrails_ws_created').on('guardrails').columns(['workspace_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('guardrails').ifExists().execute();
}
