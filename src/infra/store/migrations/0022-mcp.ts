import type { Kysely } from 'kysely';

/**
 * The MCP gateway (docs/mcp.md).
 * - `mcp_integrations`: an upstream MCP server (url, transport, auth), at organisation level (`workspace_id`
 *   null) or in one workspace. `headers_ciphertext` holds the header values sealed by the secret box
 *   (context `<id>:headers`; '' when none), `header_hints` (JSON) their masked hints. Slugs are unique per
 *   organisation.
 * - `mcp_servers`: an integration exposed in a workspace at `/v1/mcp/{slug}/mcp`, with its tool allow/deny
 *   lists (JSON) and `default_user_access`. Slugs are unique per workspace.
 * - `mcp_sessions`: client sessions of the endpoint, readable by every replica: the upstream session id,
 *   the negotiated protocol version, the client's `initialize` params (to reopen an upstream that holds its
 *   session in one process, like the SSE transport) and the principal the session is bound to;
 *   `last_used_at` (touched at most every few minutes) lets idle sessions expire.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_integrations')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('auth_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('headers_ciphertext', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('header_hints', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_integrations_org_slug').unique().on('mcp_integrations').columns(['organisation_id', 'slug']).execute();
  await db.schema
    .createTable('mcp_servers')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull().references('organisations.id'))
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('slug', 'varchar(128)', (c) => c.notNull())
    .addColumn('mcp_integration_id', 'varchar(64)', (c) => c.notNull().references('mcp_integrations.id'))
    .addColumn('tools', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('default_user_access', 'varchar(8)', (c) => c.notNull().defaultTo('allow'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_servers_ws_slug').unique().on('mcp_servers').columns(['workspace_id', 'slug']).execute();
  await db.schema.createIndex('mcp_servers_integration').on('mcp_servers').column('mcp_integration_id').execute();
  await db.schema
    .createTable('mcp_sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('server_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('key_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)')
    .addColumn('upstream_session_id', 'text')
    .addColumn('protocol_version', 'varchar(32)', (c) => c.notNull())
    .addColumn('initialize_params', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_sessions_server').on('mcp_sessions').column('server_id').execute();
  await db.schema.createIndex('mcp_sessions_last_used').on('mcp_sessions').column('last_used_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mcp_sessions_last_used').execute();
  await db.schema.dropIndex('mcp_sessions_server').execute();
  await db.schema.dropTable('mcp_sessions').execute();
  await db.schema.dropIndex('mcp_servers_integration').execute();
  await db.schema.dropIndex('mcp_servers_ws_slug').execute();
  await db.schema.dropTable('mcp_servers').execute();
  await db.schema.dropIndex('mcp_integrations_org_slug').execute();
  await db.schema.dropTable('mcp_integrations').execute();
}
