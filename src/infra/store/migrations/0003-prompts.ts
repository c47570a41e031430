import type { Kysely } from 'kysely';

/**
 * Prompt templates and partials (issue 6). One pair of tables serves both kinds: `prompts` holds the
 * identity (slug, workspace, which version is published, the saved credential) and `prompt_versions`
 * the immutable versions (template text, saved parameters, model, metadata).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('prompts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('published_version', 'integer', (c) => c.notNull())
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .addColumn('virtual_key', 'text')
    .addColumn('provider', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('prompts_ws_kind_slug', ['workspace_id', 'kind', 'slug'])
    .execute();
  await db.schema
    .createTable('prompt_versions')
    .addColumn('prompt_id', 'varchar(64)', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('model', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('prompt_versions_pk', ['prompt_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('prompt_versions').ifExists().execute();
  await db.schema.dropTable('prompts').ifExists().execute();
}
