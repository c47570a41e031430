import type { Kysely } from 'kysely';
import type { Database, McpOAuthClientsTable } from '../schema.js';

/** A client the gateway registered at an MCP upstream's authorization server (RFC 7591; secret sealed). */
export type McpOAuthClient = McpOAuthClientsTable;

/** A stored registration as the gateway reads it (its times as numbers on every store). */
export function mcpOAuthClientFromRow(r: McpOAuthClientsTable): McpOAuthClient {
  return { ...r, created_at: Number(r.created_at), secret_expires_at: r.secret_expires_at === null ? null : Number(r.secret_expires_at) };
}

/** The client registered for an integration at `issuer` with `redirectUri`. */
export async function findMcpOAuthClient(
  db: Kysely<Database>,
  integrationId: string,
  issuer: string,
  redirectUri: string,
): Promise<McpOAuthClient | undefined> {
  const row = await db
    .selectFrom('mcp_oauth_clients')
    .selectAll()
    .where('mcp_integration_id', '=', integrationId)
    .where('issuer', '=', issuer)
    .where('redirect_uri', '=', redirectUri)
    .executeTakeFirst();
  return row && mcpOAuthClientFromRow(row);
}

/** The client registered for an integration under `clientId` (the one a connection's tokens were issued to). */
export async function getMcpOAuthClient(
  db: Kysely<Database>,
  integrationId: string,
  clientId: string,
): Promise<McpOAuthClient | undefined> {
  const row = await db
    .selectFrom('mcp_oauth_clients')
    .selectAll()
    .where('mcp_integration_id', '=', integrationId)
    .where('client_id', '=', clientId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row && mcpOAuthClientFromRow(row);
}

/**
 * Stores a registration unless one for the same integration, issuer and redirect URI is there already
 * (another replica registered at the same time), and answers the one stored: every replica then uses the
 * same client.
 */
export async function saveMcpOAuthClient(db: Kysely<Database>, c: McpOAuthClient): Promise<McpOAuthClient> {
  await db
    .insertInto('mcp_oauth_clients')
    .values(c)
    .onConflict((oc) => oc.columns(['mcp_integration_id', 'issuer', 'redirect_uri']).doNothing())
    .execute();
  return (await findMcpOAuthClient(db, c.mcp_integration_id, c.issuer, c.redirect_uri)) ?? c;
}

/** Replaces a registration whose secret expired by a new one (same integration, issuer and redirect URI). */
export async function replaceMcpOAuthClient(db: Kysely<Database>, expiredId: string, c: McpOAuthClient): Promise<McpOAuthClient> {
  await db.deleteFrom('mcp_oauth_clients').where('id', '=', expiredId).execute();
  return saveMcpOAuthClient(db, c);
}
