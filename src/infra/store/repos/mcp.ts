import type { Kysely } from 'kysely';
import type { Database, McpConnectionsTable, McpIntegrationsTable, McpServersTable, McpSessionsTable } from '../schema.js';
import type { Store } from '../store.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';
import type { HeaderSecretMapping } from './secret-references.js';
import { mcpOAuthClientFromRow, type McpOAuthClient } from './mcp-oauth-clients.js';

/** How the gateway reaches an upstream MCP server. */
export type McpTransport = 'http' | 'sse';

/** A stored MCP integration: one upstream server, at organisation level or in one workspace. */
export interface McpIntegration {
  id: string;
  organisation_id: string;
  /** Null: organisation level (every workspace of the organisation may expose it). */
  workspace_id: string | null;
  name: string;
  slug: string;
  url: string;
  transport: McpTransport;
  auth_type: 'none' | 'headers' | 'oauth';
  /** The header values sealed as JSON by the secret box (context `<id>:headers`); '' when none. */
  headers_ciphertext: string;
  /** Header name → masked hint of its value. */
  header_hints: Record<string, string>;
  /** OAuth settings of an `auth_type: oauth` integration (empty otherwise). */
  oauth: McpOAuthSettings;
  /** The OAuth client secret sealed by the secret box (context `<id>:oauth`); '' when none. */
  oauth_secret_ciphertext: string;
  /** Headers filled from secret references at call time (`auth_type: headers`; they override `headers` of the same name). */
  secret_mappings: HeaderSecretMapping[];
  created_at: number;
  updated_at: number;
}

/** How the gateway reaches the upstream's authorization server for per-user connections. */
export interface McpOAuthSettings {
  /** The authorization server's issuer, when not discovered from the upstream's protected-resource metadata. */
  authorization_server?: string;
  client_id?: string;
  /** Scopes asked for at connection. */
  scopes?: string[];
  /** Masked hint of the client secret, when one is set. */
  client_secret_hint?: string;
}

/** A tool filter: names allowed (when set, nothing else is) and names denied. */
export interface McpToolFilter {
  allow?: string[];
  deny?: string[];
}

/** A stored MCP server: an integration exposed in a workspace at `/v1/mcp/{slug}/mcp`. */
export interface McpServer {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  mcp_integration_id: string;
  tools: McpToolFilter;
  default_user_access: 'allow' | 'deny';
  created_at: number;
  updated_at: number;
}

/** A client session of the MCP endpoint, as every replica reads it. */
export interface McpSession {
  id: string;
  server_id: string;
  workspace_id: string;
  /** The gateway key (or console session) that opened it. */
  key_id: string;
  /** The user behind that key, when there is one: the session is bound to the user. */
  user_id: string | null;
  upstream_session_id: string | null;
  protocol_version: string;
  /** The client's `initialize` params (JSON), replayed when an upstream session must be reopened. */
  initialize_params: string;
  created_at: number;
  last_used_at: number;
}

function integrationFromRow(r: McpIntegrationsTable): McpIntegration {
  return {
    ...r,
    transport: r.transport as McpTransport,
    auth_type: r.auth_type as McpIntegration['auth_type'],
    header_hints: JSON.parse(r.header_hints),
    oauth: JSON.parse(r.oauth),
    secret_mappings: JSON.parse(r.secret_mappings ?? '[]') as HeaderSecretMapping[],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

function integrationToRow(i: McpIntegration): McpIntegrationsTable {
  return {
    ...i,
    header_hints: JSON.stringify(i.header_hints),
    oauth: JSON.stringify(i.oauth),
    secret_mappings: JSON.stringify(i.secret_mappings),
  };
}

function serverFromRow(r: McpServersTable): McpServer {
  return {
    ...r,
    tools: JSON.parse(r.tools),
    default_user_access: r.default_user_access as McpServer['default_user_access'],
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

function serverToRow(s: McpServer): McpServersTable {
  return { ...s, tools: JSON.stringify(s.tools) };
}

/** The integrations a scope sees: its workspaces' own and every organisation-level one of its organisation. */
function visibleIntegrations(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('mcp_integrations')
    .where('organisation_id', '=', scope.organisationId)
    .where((eb) => eb.or([eb('workspace_id', 'in', inList(scope)), eb('workspace_id', 'is', null)]));
}

/** Inserts an MCP integration of the scope. */
export async function insertMcpIntegration(db: Kysely<Database>, scope: TenantScope, i: McpIntegration): Promise<void> {
  assertInScope(scope, i.organisation_id, i.workspace_id);
  await db.insertInto('mcp_integrations').values(integrationToRow(i)).execute();
}

/** Replaces the stored fields of an MCP integration of the scope. */
export async function updateMcpIntegration(db: Kysely<Database>, scope: TenantScope, i: McpIntegration): Promise<void> {
  assertInScope(scope, i.organisation_id, i.workspace_id);
  const { id, organisation_id: _o, workspace_id: _w, created_at: _c, ...rest } = integrationToRow(i);
  await db.updateTable('mcp_integrations').set(rest).where('id', '=', id).where('organisation_id', '=', scope.organisationId).execute();
}

/** Deletes an MCP integration of the scope (the caller checked that no server uses it). */
export async function deleteMcpIntegration(db: Kysely<Database>, scope: TenantScope, i: McpIntegration): Promise<void> {
  assertInScope(scope, i.organisation_id, i.workspace_id);
  await deleteMcpConnectionsOfIntegration(db, i.id);
  await db.deleteFrom('mcp_integrations').where('id', '=', i.id).where('organisation_id', '=', scope.organisationId).execute();
}

/** The MCP integrations of the organisation with these ids (the integrations of connections being removed), by id. */
export async function mcpIntegrationsById(
  db: Kysely<Database>,
  organisationId: string,
  ids: readonly string[],
): Promise<Map<string, McpIntegration>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('mcp_integrations')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, integrationFromRow(r)]));
}

/** One MCP integration the scope sees, by id or slug. */
export async function getMcpIntegration(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<McpIntegration | undefined> {
  const row = await visibleIntegrations(db, scope)
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
  return row && integrationFromRow(row);
}

/** A page of the MCP integrations the scope sees (newest first), with the total. */
export async function listMcpIntegrations(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: McpIntegration[]; total: number }> {
  const [rows, count] = await Promise.all([
    visibleIntegrations(db, scope).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    visibleIntegrations(db, scope)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ]);
  return { rows: rows.map(integrationFromRow), total: Number(count?.n ?? 0) };
}

/** How many MCP servers expose an integration (in any workspace). */
export async function countServersOfMcpIntegration(db: Kysely<Database>, integrationId: string): Promise<number> {
  const row = await db
    .selectFrom('mcp_servers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('mcp_integration_id', '=', integrationId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

function visibleServers(db: Kysely<Database>, scope: TenantScope) {
  return db.selectFrom('mcp_servers').where('organisation_id', '=', scope.organisationId).where('workspace_id', 'in', inList(scope));
}

/** Inserts an MCP server of the scope. */
export async function insertMcpServer(db: Kysely<Database>, scope: TenantScope, s: McpServer): Promise<void> {
  assertInScope(scope, s.organisation_id, s.workspace_id);
  await db.insertInto('mcp_servers').values(serverToRow(s)).execute();
}

/** Replaces the stored fields of an MCP server of the scope. */
export async function updateMcpServer(db: Kysely<Database>, scope: TenantScope, s: McpServer): Promise<void> {
  assertInScope(scope, s.organisation_id, s.workspace_id);
  const { id, organisation_id: _o, workspace_id: _w, created_at: _c, ...rest } = serverToRow(s);
  await db.updateTable('mcp_servers').set(rest).where('id', '=', id).where('organisation_id', '=', scope.organisationId).execute();
}

/** Deletes an MCP server of the scope and its client sessions. */
export async function deleteMcpServer(db: Kysely<Database>, scope: TenantScope, s: McpServer): Promise<void> {
  assertInScope(scope, s.organisation_id, s.workspace_id);
  await db.deleteFrom('mcp_sessions').where('server_id', '=', s.id).execute();
  await db.deleteFrom('mcp_servers').where('id', '=', s.id).where('organisation_id', '=', scope.organisationId).execute();
}

/** One MCP server the scope sees, by id or slug. */
export async function getMcpServer(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<McpServer | undefined> {
  const row = await visibleServers(db, scope)
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
  return row && serverFromRow(row);
}

/** A page of the MCP servers the scope sees (newest first), with the total. */
export async function listMcpServers(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: McpServer[]; total: number }> {
  const [rows, count] = await Promise.all([
    visibleServers(db, scope).selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    visibleServers(db, scope)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ]);
  return { rows: rows.map(serverFromRow), total: Number(count?.n ?? 0) };
}

/** Every MCP server with its integration (the runtime snapshot loads them). */
export async function listMcpServersWithIntegrations(store: Store): Promise<Array<{ server: McpServer; integration: McpIntegration }>> {
  const [servers, integrations] = await Promise.all([
    store.db.selectFrom('mcp_servers').selectAll().execute(),
    store.db.selectFrom('mcp_integrations').selectAll().execute(),
  ]);
  const byId = new Map(integrations.map((r) => [r.id, integrationFromRow(r)]));
  const out: Array<{ server: McpServer; integration: McpIntegration }> = [];
  for (const r of servers) {
    const integration = byId.get(r.mcp_integration_id);
    if (integration) out.push({ server: serverFromRow(r), integration });
  }
  return out;
}

function sessionFromRow(r: McpSessionsTable): McpSession {
  return { ...r, created_at: Number(r.created_at), last_used_at: Number(r.last_used_at) };
}

/** Stores a new client session. */
export async function insertMcpSession(store: Store, s: McpSession): Promise<void> {
  await store.db.insertInto('mcp_sessions').values(s).execute();
}

/** A client session of a server, by id. */
export async function getMcpSession(store: Store, serverId: string, id: string): Promise<McpSession | undefined> {
  const row = await store.db
    .selectFrom('mcp_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('server_id', '=', serverId)
    .executeTakeFirst();
  return row && sessionFromRow(row);
}

/** Records a reopened upstream session (a replica replayed `initialize`). */
export async function setMcpUpstreamSession(store: Store, id: string, upstreamSessionId: string | null, now: number): Promise<void> {
  await store.db
    .updateTable('mcp_sessions')
    .set({ upstream_session_id: upstreamSessionId, last_used_at: now })
    .where('id', '=', id)
    .execute();
}

/** Records that a session was used (called at most every few minutes per session). */
export async function touchMcpSession(store: Store, id: string, now: number): Promise<void> {
  await store.db.updateTable('mcp_sessions').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Deletes sessions unused since `cutoff`. */
export async function deleteIdleMcpSessions(store: Store, cutoff: number): Promise<void> {
  await store.db.deleteFrom('mcp_sessions').where('last_used_at', '<', cutoff).execute();
}

/** Ends a client session. */
export async function deleteMcpSession(store: Store, id: string): Promise<void> {
  await store.db.deleteFrom('mcp_sessions').where('id', '=', id).execute();
}

/** One user's upstream OAuth connection to an MCP integration (tokens sealed; never answered). */
export interface McpConnection {
  id: string;
  organisation_id: string;
  mcp_integration_id: string;
  user_id: string;
  /** Sealed with context `<id>:access`. */
  access_token_ciphertext: string;
  /** Sealed with context `<id>:refresh`; '' when the server issued none. */
  refresh_token_ciphertext: string;
  /** Access-token expiry (ms); null when the server gave no lifetime. */
  expires_at: number | null;
  /** Granted scopes, space-separated. */
  scopes: string;
  connected_at: number;
  updated_at: number;
  /** The client the gateway registered at the authorization server (RFC 7591) and got the tokens as; null: the integration's `oauth.client_id`. */
  oauth_client_id: string | null;
}

function connectionFromRow(r: McpConnectionsTable): McpConnection {
  return {
    ...r,
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
    connected_at: Number(r.connected_at),
    updated_at: Number(r.updated_at),
  };
}

/** Stores a user's connection, replacing the one they had to the same integration. */
export async function saveMcpConnection(db: Kysely<Database>, c: McpConnection): Promise<void> {
  await db.deleteFrom('mcp_connections').where('mcp_integration_id', '=', c.mcp_integration_id).where('user_id', '=', c.user_id).execute();
  await db.insertInto('mcp_connections').values(c).execute();
}

/** A user's connection to an integration. */
export async function getMcpConnection(db: Kysely<Database>, integrationId: string, userId: string): Promise<McpConnection | undefined> {
  const row = await db
    .selectFrom('mcp_connections')
    .selectAll()
    .where('mcp_integration_id', '=', integrationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && connectionFromRow(row);
}

/**
 * Replaces the tokens of a connection after a refresh, only while it still holds `previousAccess`
 * (a conditional UPDATE: of two replicas refreshing at once, one wins). True when this write won.
 */
export async function replaceMcpConnectionTokens(
  db: Kysely<Database>,
  id: string,
  previousAccess: string,
  next: Pick<McpConnection, 'access_token_ciphertext' | 'refresh_token_ciphertext' | 'expires_at' | 'scopes' | 'updated_at'>,
): Promise<boolean> {
  const r = await db
    .updateTable('mcp_connections')
    .set(next)
    .where('id', '=', id)
    .where('access_token_ciphertext', '=', previousAccess)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A page of the connections to an integration (oldest first), with the total. */
export async function listMcpConnections(
  db: Kysely<Database>,
  integrationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: McpConnection[]; total: number }> {
  const base = db.selectFrom('mcp_connections').where('mcp_integration_id', '=', integrationId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('connected_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(connectionFromRow), total: Number(count?.n ?? 0) };
}

/**
 * A page of the connections to an integration of users who are members of `workspaceId` (oldest
 * first), with the total: an organisation-level integration is shared by workspaces, and a workspace
 * sees only its own members' connections.
 */
export async function listMcpConnectionsOfWorkspace(
  db: Kysely<Database>,
  integrationId: string,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: McpConnection[]; total: number }> {
  const base = db
    .selectFrom('mcp_connections')
    .where('mcp_integration_id', '=', integrationId)
    .where('user_id', 'in', db.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspaceId));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('connected_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(connectionFromRow), total: Number(count?.n ?? 0) };
}

/** Deletes a connection only while it still holds `access` (a refresh the server refused; another replica may have replaced it). */
export async function deleteMcpConnectionHolding(db: Kysely<Database>, id: string, access: string): Promise<void> {
  await db.deleteFrom('mcp_connections').where('id', '=', id).where('access_token_ciphertext', '=', access).execute();
}

/** Revokes one user's connection to an integration, in one statement; the connection removed, or undefined when there was none. */
export async function deleteMcpConnection(db: Kysely<Database>, integrationId: string, userId: string): Promise<McpConnection | undefined> {
  const row = await db
    .deleteFrom('mcp_connections')
    .where('mcp_integration_id', '=', integrationId)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
  return row && connectionFromRow(row);
}

/** Revokes every MCP connection of a user of the organisation (deactivation, deletion); the connections removed. */
export async function deleteUserMcpConnections(db: Kysely<Database>, organisationId: string, userId: string): Promise<McpConnection[]> {
  const rows = await db
    .deleteFrom('mcp_connections')
    .where('user_id', '=', userId)
    .where('organisation_id', '=', organisationId)
    .returningAll()
    .execute();
  return rows.map(connectionFromRow);
}

/** What dropping an integration's connections removed: the connections and the clients the gateway had registered for it. */
export interface DroppedMcpConnections {
  connections: McpConnection[];
  clients: McpOAuthClient[];
}

/**
 * Drops every connection to an integration and the clients the gateway registered for it (the integration
 * is deleted, or its OAuth settings or URL change: a new registration follows at the next connect); what
 * was removed is returned, for the revocation of its grants upstream once the write commits.
 */
export async function deleteMcpConnectionsOfIntegration(db: Kysely<Database>, integrationId: string): Promise<DroppedMcpConnections> {
  const connections = await db.deleteFrom('mcp_connections').where('mcp_integration_id', '=', integrationId).returningAll().execute();
  const clients = await db.deleteFrom('mcp_oauth_clients').where('mcp_integration_id', '=', integrationId).returningAll().execute();
  return { connections: connections.map(connectionFromRow), clients: clients.map(mcpOAuthClientFromRow) };
}
