import { sql, type Kysely } from 'kysely';

/**
 * Identity (control-plane.md §5), one row set per organisation:
 * - `jwt_settings`: how JWTs sent as gateway keys are verified — a JWKS URL or an inline JWKS (JSON
 *   text), issuer, audience, allowed algorithms (JSON text).
 * - `scim_tokens`: bearer tokens of the SCIM API (SHA-256, masked hint, revocation time).
 * - `scim_users`: the SCIM side of a user — `userName` (unique per organisation, case-insensitively),
 *   `externalId` and the other attributes the directory sent (JSON text); removed with the user.
 * - `scim_groups` (display name unique per organisation, case-insensitively), `scim_group_members`,
 *   and `scim_workspace_mappings`: a group's members are members of the workspace with the role.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jwt_settings')
    .addColumn('organisation_id', 'varchar(64)', (c) => c.primaryKey().references('organisations.id'))
    .addColumn('jwks_url', 'text')
    .addColumn('jwks', 'text')
    .addColumn('issuer', 'text')
    .addColumn('audience', 'text')
    .addColumn('algorithms', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('token_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('token_hint', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createTable('scim_users')
    .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('user_name', 'varchar(320)', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await sql`CREATE UNIQUE INDEX scim_users_org_user_name ON scim_users (organisation_id, lower(user_name))`.execute(db);
  await db.schema
    .createTable('scim_groups')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('display_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX scim_groups_org_name ON scim_groups (organisation_id, lower(display_name))`.execute(db);
  await db.schema
    .createTable('scim_group_members')
    .addColumn('group_id', 'varchar(64)', (c) => c.notNull().references('scim_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('scim_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('scim_group_members_user').on('scim_group_members').column('user_id').execute();
  await db.schema
    .createTable('scim_workspace_mappings')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('group_id', 'varchar(64)', (c) => c.notNull().references('scim_groups.id').onDelete('cascade'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_workspace_mappings_pair')
    .unique()
    .on('scim_workspace_mappings')
    .columns(['workspace_id', 'group_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['scim_workspace_mappings', 'scim_group_members', 'scim_groups', 'scim_users', 'scim_tokens', 'jwt_settings']) {
    await db.schema.dropTable(table).execute();
  }
}
