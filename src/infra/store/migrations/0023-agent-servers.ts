import type { Kysely } from 'kysely';

/**
 * Agent servers (issue 23): A2A agents a workspace publishes through the gateway. `headers_sealed`
 * holds the headers the gateway sends upstream, as JSON sealed by the secret box (context
 * `<id>:headers`; '' when none); `header_hints` their masked hints (JSON); `skills_allow` the
 * allow-listed skill ids (JSON array, null: every skill). Slugs are unique per workspace.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_servers')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('headers_sealed', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('header_hints', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('skills_allow', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agent_servers_ws_slug').unique().on('agent_servers').columns(['workspace_id', 'slug']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('agent_servers').ifExists().execute();
}
