import { sql, type Kysely } from 'kysely';

/**
 * Tenancy: users of an organisation (email unique per organisation, case-insensitively), their
 * workspace memberships, a workspace's `description`, `metadata` (JSON text) and request `defaults`
 * (JSON text, null when none), and the user a gateway key belongs to (`api_keys.user_id`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('member'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX users_org_email ON users (organisation_id, lower(email))`.execute(db);
  await db.schema
    .createTable('workspace_members')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('workspace_members_user').on('workspace_members').column('user_id').execute();
  await db.schema.alterTable('workspaces').addColumn('description', 'text').execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.alterTable('workspaces').addColumn('defaults', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('user_id', 'varchar(64)').execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_user').execute();
  await db.schema.alterTable('api_keys').dropColumn('user_id').execute();
  await db.schema.alterTable('workspaces').dropColumn('defaults').execute();
  await db.schema.alterTable('workspaces').dropColumn('metadata').execute();
  await db.schema.alterTable('workspaces').dropColumn('description').execute();
  await db.schema.dropTable('workspace_members').execute();
  await db.schema.dropTable('users').execute();
}
