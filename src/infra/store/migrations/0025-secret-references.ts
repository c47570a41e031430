import type { Kysely } from 'kysely';

/**
 * Secret references: where a secret lives in an external manager (`aws_sm`, `azure_kv`,
 * `hashicorp_vault`) and how to authenticate there. `auth_ciphertext` is the whole `auth_config`
 * sealed by the gateway's secret box (context: the row id); `auth_hint` its public view (JSON, secret
 * members by their hint); `allowed_workspaces` JSON ids. Organisation-level; slugs unique per organisation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('secret_references')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('manager_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('auth_ciphertext', 'text', (c) => c.notNull())
    .addColumn('auth_hint', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('secret_path', 'text', (c) => c.notNull())
    .addColumn('secret_key', 'varchar(256)')
    .addColumn('allow_all_workspaces', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('allowed_workspaces', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('secret_references_org_slug').unique().on('secret_references').columns(['organisation_id', 'slug']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('secret_references_org_slug').execute();
  await db.schema.dropTable('secret_references').execute();
}
