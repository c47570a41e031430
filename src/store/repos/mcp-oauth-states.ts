import type { Kysely } from 'kysely';
import type { Database, McpOAuthStatesTable } from '../schema.js';

/** A pending upstream authorization of a user to an MCP server (the PKCE verifier still sealed). */
export type McpOAuthState = McpOAuthStatesTable;

function fromRow(r: McpOAuthStatesTable): McpOAuthState {
  return { ...r, created_at: Number(r.created_at), expires_at: Number(r.expires_at) };
}

/** Records a pending authorization (and drops the expired ones). */
export async function insertMcpOAuthState(db: Kysely<Database>, state: McpOAuthState, now: number): Promise<void> {
  await db.deleteFrom('mcp_oauth_states').where('expires_at', '<=', now).execute();
  await db.insertInto('mcp_oauth_states').values(state).execute();
}

/**
 * Takes the pending authorization of `stateHash`: deletes it (a replayed callback finds nothing, on any
 * replica) and returns it unless it had expired.
 */
export async function takeMcpOAuthState(db: Kysely<Database>, stateHash: string, now: number): Promise<McpOAuthState | undefined> {
  const row = await db.deleteFrom('mcp_oauth_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
  if (!row) return undefined;
  const state = fromRow(row);
  return state.expires_at <= now ? undefined : state;
}
