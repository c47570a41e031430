import type { Kysely } from 'kysely';
import type { Database, McpOAuthStatesTable } from '../schema.js';

/** A pending upstream authorization of a user to an MCP server (the PKCE verifier still sealed). */
export type McpOAuthState = McpOAuthStatesTable;

function fromRow(r: McpOAuthStatesTable): McpOAuthState {
  return { ...r, created_at: Number(r.created_at), expires_at: Number(r.expires_at) };
}

/** Pending authorizations kept per user and MCP server: a new one beyond this drops the oldest. */
export const MAX_PENDING_PER_USER_AND_SERVER = 5;

/**
 * Records a pending authorization, drops the expired ones, and keeps only the user's newest
 * `MAX_PENDING_PER_USER_AND_SERVER` for the server (an older authorization URL then answers "unknown state"): asking
 * for authorization URLs in a loop cannot fill the table.
 */
export async function insertMcpOAuthState(db: Kysely<Database>, state: McpOAuthState, now: number): Promise<void> {
  await db.deleteFrom('mcp_oauth_states').where('expires_at', '<=', now).execute();
  await db.insertInto('mcp_oauth_states').values(state).execute();
  const newest = db
    .selectFrom('mcp_oauth_states')
    .select('state_hash')
    .where('user_id', '=', state.user_id)
    .where('server_id', '=', state.server_id)
    .orderBy('created_at', 'desc')
    .orderBy('state_hash', 'desc')
    .limit(MAX_PENDING_PER_USER_AND_SERVER);
  await db
    .deleteFrom('mcp_oauth_states')
    .where('user_id', '=', state.user_id)
    .where('server_id', '=', state.server_id)
    .where('state_hash', 'not in', newest)
    .execute();
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
