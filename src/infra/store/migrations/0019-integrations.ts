import type { Kysely } from 'kysely';

/**
 * Integrations: provider credentials held once at organisation level (`workspace_id` null) or in one
 * workspace. `key_ciphertext` is the provider key sealed by the gateway's secret box (context: the row
 * id; '' when none), `key_hint` its masked hint; credential-like
 * configuration values (secret keys, tokens, service accounts) are sealed together as JSON in
 * `secret_configurations` (context `<id>:configurations`) and shown by a hint in `configurations`;
 * `configurations`, `secret_mappings`, `pricing_adjustments`
 * (null when none), `models` (the integration-models list, null when never set) and `workspaces` (ids
 * the integration is shared with) are JSON text. Slugs are unique per organisation. Virtual keys
 * (providers) gain `integration_id`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('ai_provider_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('key_ciphertext', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('key_hint', 'varchar(64)')
    .addColumn('configurations', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('secret_configurations', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('secret_mappings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('pricing_adjustments', 'text')
    .addColumn('allow_all_models', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('models', 'text')
    .addColumn('workspaces', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integrations_org_slug').unique().on('integrations').columns(['organisation_id', 'slug']).execute();
  await db.schema.alterTable('virtual_keys').addColumn('integration_id', 'varchar(64)').execute();
  await db.schema.createIndex('virtual_keys_integration').on('virtual_keys').column('integration_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('virtual_keys_integration').execute();
  await db.schema.alterTable('virtual_keys').dropColumn('integration_id').execute();
  await db.schema.dropIndex('integrations_org_slug').execute();
  await db.schema.dropTable('integrations').execute();
}
