import type { Kysely } from 'kysely';
import type { GatewayDeps } from '../../gateway/deps.js';
import type { Database } from '../../store/schema.js';
import { mcpIntegrationsById, type DroppedMcpConnections, type McpConnection, type McpIntegration } from '../../store/repos/mcp.js';
import type { AfterCommit } from '../../kernel/after-commit.js';
import { eachAtMost } from '../../lib/each-at-most.js';
import { loadUpstreamOAuth } from './load-upstream-oauth.js';

/**
 * Asks, once the write that removed `connection` (a connection to `integration`) has committed, the
 * authorization server to revoke its tokens (RFC 7009, `ConnectionTokens.revokeUpstream`). `afterCommit`
 * never runs the task after a rollback and logs a failure (the gateway's copy of the tokens is gone either way).
 */
export function revokeUpstreamAfterCommit(deps: GatewayDeps, integration: McpIntegration, connection: McpConnection, afterCommit: AfterCommit): void {
  afterCommit(async () => {
    await (await loadUpstreamOAuth()).upstreamOAuth(deps).tokens.revokeUpstream(integration, connection);
  });
}

/** Revocations of one write's dropped connections that run at once (an integration may have thousands of users). */
const REVOCATIONS_AT_ONCE = 4;

/**
 * Once the write commits, revokes upstream every connection it dropped with its integration's OAuth settings
 * (the integration deleted, its URL, OAuth settings or auth type changed), `REVOCATIONS_AT_ONCE` at a time so
 * that the authorization server is not sent every user's revocation at the same moment; a failure is logged
 * and the others go on. `was` is the integration as it was before the write, whose authorization server issued
 * the tokens; the clients the gateway had registered there (deleted by the same write) authenticate the
 * revocations.
 */
export function revokeDroppedUpstream(deps: GatewayDeps, was: McpIntegration, dropped: DroppedMcpConnections, afterCommit: AfterCommit): void {
  if (was.auth_type !== 'oauth' || dropped.connections.length === 0) return;
  afterCommit(async () => {
    const { tokens } = (await loadUpstreamOAuth()).upstreamOAuth(deps);
    await eachAtMost(dropped.connections, REVOCATIONS_AT_ONCE, async (c) => {
      try {
        await tokens.revokeUpstream(was, c, dropped.clients);
      } catch (err) {
        deps.logger.warn({ err: err instanceof Error ? err.message : String(err), server: was.slug }, 'MCP OAuth revocation of a dropped connection failed');
      }
    });
  });
}

/**
 * `revokeUpstreamAfterCommit` for each of `removed` (MCP connections of the organisation a write removed: a user
 * deactivated or deleted keeps no grant at an upstream), their integrations read in the write's transaction (`db`).
 */
export async function revokeRemovedUpstream(deps: GatewayDeps, db: Kysely<Database>, organisationId: string, removed: readonly McpConnection[], afterCommit: AfterCommit): Promise<void> {
  if (removed.length === 0) return;
  const integrations = await mcpIntegrationsById(db, organisationId, removed.map((c) => c.mcp_integration_id));
  for (const c of removed) {
    const integration = integrations.get(c.mcp_integration_id);
    if (integration?.auth_type === 'oauth') revokeUpstreamAfterCommit(deps, integration, c, afterCommit);
  }
}
