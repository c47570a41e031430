import type { Kysely } from 'kysely';

/**
 * Dynamic client registration (RFC 7591) for the MCP gateway's upstream OAuth (docs/mcp.md).
 * - `mcp_oauth_clients`: the client the gateway registered itself as at an integration's authorization
 *   server, when the integration names no `oauth.client_id`: one per (integration, issuer, redirect URI),
 *   since a registration lists its redirect URIs. The client secret is sealed by the secret box (context
 *   `<id>:client`; '' for a public client), with the authentication method the server registered and when
 *   the secret expires (ms; null when it does not).
 * - `mcp_connections.oauth_client_id`: the registered client a connection's tokens were issued to (null: the
 *   integration's own `oauth.client_id`); refreshes and revocations use the same client.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_oauth_clients')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('mcp_integration_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_ciphertext', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('token_endpoint_auth_method', 'varchar(64)', (c) => c.notNull())
    .addColumn('secret_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mcp_oauth_clients_key')
    .unique()
    .on('mcp_oauth_clients')
    .columns(['mcp_integration_id', 'issuer', 'redirect_uri'])
    .execute();
  await db.schema.alterTable('mcp_connections').addColumn('oauth_client_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mcp_connections').dropColumn('oauth_client_id').execute();
  await db.schema.dropIndex('mcp_oauth_clients_key').execute();
  await db.schema.dropTable('mcp_oauth_clients').execute();
}
