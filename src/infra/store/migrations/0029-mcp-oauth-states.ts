import type { Kysely } from 'kysely';

/**
 * Pending upstream authorizations of the MCP gateway's per-user OAuth (docs/mcp.md, "Upstream OAuth"):
 * one row per authorization URL handed out, found by the SHA-256 of its `state` (the state itself is
 * never stored), bound to the user and the MCP server that asked, with the PKCE verifier sealed by the
 * secret box (context `mcp-oauth-state:<state hash>`), the redirect URI and the RFC 8707 resource sent,
 * and an expiry. Taken (deleted) by the callback, so a state works once and on any replica.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_oauth_states')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('server_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('mcp_integration_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('code_verifier_ciphertext', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_oauth_states_expires').on('mcp_oauth_states').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mcp_oauth_states_expires').execute();
  await db.schema.dropTable('mcp_oauth_states').execute();
}
