import type { Kysely } from 'kysely';

/**
 * Per-user upstream OAuth for the MCP gateway (docs/mcp.md).
 * - `mcp_integrations.oauth`: the OAuth settings of an `auth_type: oauth` integration as JSON
 *   (`authorization_server`, `client_id`, `scopes`, `client_secret_hint`; '{}' when none);
 *   `oauth_secret_ciphertext` the client secret sealed by the secret box (context `<id>:oauth`; '' when none).
 * - `mcp_connections`: one user's tokens at the upstream of one integration: access and refresh tokens
 *   sealed (context `<id>:access` / `<id>:refresh`), `expires_at` (ms, null when the server gave no
 *   lifetime), the granted scopes and when the user connected. One row per (integration, user).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('mcp_integrations')
    .addColumn('oauth', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .alterTable('mcp_integrations')
    .addColumn('oauth_secret_ciphertext', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('mcp_connections')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('mcp_integration_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('access_token_ciphertext', 'text', (c) => c.notNull())
    .addColumn('refresh_token_ciphertext', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('expires_at', 'bigint')
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('connected_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mcp_connections_integration_user')
    .unique()
    .on('mcp_connections')
    .columns(['mcp_integration_id', 'user_id'])
    .execute();
  await db.schema.createIndex('mcp_connections_user').on('mcp_connections').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mcp_connections_user').execute();
  await db.schema.dropIndex('mcp_connections_integration_user').execute();
  await db.schema.dropTable('mcp_connections').execute();
  await db.schema.alterTable('mcp_integrations').dropColumn('oauth_secret_ciphertext').execute();
  await db.schema.alterTable('mcp_integrations').dropColumn('oauth').execute();
}
