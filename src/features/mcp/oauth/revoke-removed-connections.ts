import type { Kysely } from 'kysely';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import type { Database } from '../../../infra/store/schema.js';
import {
  mcpIntegrationsById,
  type DroppedMcpConnections,
  type McpConnection,
  type McpIntegration,
} from '../../../infra/store/repos/mcp.js';
import type { McpOAuthClient } from '../../../infra/store/repos/mcp-oauth-clients.js';
import type { AfterCommit } from '../../../kernel/after-commit.js';
import { eachAtMost } from '../../../foundation/lib/each-at-most.js';
import { loadUpstreamOAuth } from './load-upstream-oauth.js';

/** A removed connection whose grant is to be revoked, and its integration as it issued the tokens. */
interface Revocation {
  integration: McpIntegration;
  connection: McpConnection;
}

/** Revocations of one write that run at once (an integration deleted may drop thousands of users' connections). */
const REVOCATIONS_AT_ONCE = 4;

/**
 * Once the write that removed the connections has committed (never after a rollback), asks the authorization
 * servers to revoke their tokens (RFC 7009, `ConnectionTokens.revokeUpstream`), `REVOCATIONS_AT_ONCE` at a time so
 * that a server is not sent every user's revocation at the same moment; a failure is logged and the others go on
 * (the gateway's copy of the tokens is gone either way). `removedClients`: the registrations the same write deleted,
 * which authenticate the revocations of tokens issued to them.
 */
function revokeAfterCommit(
  deps: GatewayDeps,
  revocations: readonly Revocation[],
  afterCommit: AfterCommit,
  removedClients?: readonly McpOAuthClient[],
): void {
  if (revocations.length === 0) return;
  afterCommit(async () => {
    const { tokens } = (await loadUpstreamOAuth()).upstreamOAuth(deps);
    await eachAtMost(revocations, REVOCATIONS_AT_ONCE, async ({ integration, connection }) => {
      try {
        await tokens.revokeUpstream(integration, connection, removedClients);
      } catch (err) {
        deps.logger.warn(
          { err: err instanceof Error ? err.message : String(err), server: integration.slug },
          'MCP OAuth revocation of a dropped connection failed',
        );
      }
    });
  });
}

/** `revokeAfterCommit` of one connection to `integration` (a user's explicit revoke). */
export function revokeUpstreamAfterCommit(
  deps: GatewayDeps,
  integration: McpIntegration,
  connection: McpConnection,
  afterCommit: AfterCommit,
): void {
  revokeAfterCommit(deps, [{ integration, connection }], afterCommit);
}

/**
 * `revokeAfterCommit` of every connection a write dropped with its integration's OAuth settings (the integration
 * deleted, its URL, OAuth settings or auth type changed): `was` is the integration as it was before the write,
 * whose authorization server issued the tokens; the clients the gateway had registered there (deleted by the same
 * write) authenticate the revocations.
 */
export function revokeDroppedUpstream(
  deps: GatewayDeps,
  was: McpIntegration,
  dropped: DroppedMcpConnections,
  afterCommit: AfterCommit,
): void {
  if (was.auth_type !== 'oauth') return;
  revokeAfterCommit(
    deps,
    dropped.connections.map((connection) => ({ integration: was, connection })),
    afterCommit,
    dropped.clients,
  );
}

/**
 * `revokeAfterCommit` of `removed` (MCP connections of the organisation a write removed: a user deactivated or
 * deleted keeps no grant at an upstream), their integrations read in the write's transaction (`db`).
 */
export async function revokeRemovedUpstream(
  deps: GatewayDeps,
  db: Kysely<Database>,
  organisationId: string,
  removed: readonly McpConnection[],
  afterCommit: AfterCommit,
): Promise<void> {
  if (removed.length === 0) return;
  const integrations = await mcpIntegrationsById(
    db,
    organisationId,
    removed.map((c) => c.mcp_integration_id),
  );
  const revocations: Revocation[] = [];
  for (const connection of removed) {
    const integration = integrations.get(connection.mcp_integration_id);
    if (integration?.auth_type === 'oauth') revocations.push({ integration, connection });
  }
  revokeAfterCommit(deps, revocations, afterCommit);
}
