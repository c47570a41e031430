import type { Kysely } from 'kysely';
import type { GatewayDeps } from '../../gateway/deps.js';
import type { Database } from '../../store/schema.js';
import { mcpIntegrationsById, type McpConnection } from '../../store/repos/mcp.js';
import { loadUpstreamOAuth } from './load-upstream-oauth.js';

/**
 * Asks, once the write that removed `removed` (MCP connections of the organisation) has committed, each
 * connection's authorization server to revoke its tokens (RFC 7009, `ConnectionTokens.revokeUpstream`): a
 * user deactivated or deleted keeps no grant at an upstream. The integrations are read in the write's
 * transaction (`db`); one task per connection goes to `afterCommit`, which never runs after a rollback and
 * logs a failure (the gateway's copy of the tokens is gone either way).
 */
export async function revokeRemovedUpstream(deps: GatewayDeps, db: Kysely<Database>, organisationId: string, removed: readonly McpConnection[], afterCommit: (task: () => Promise<void>) => void): Promise<void> {
  if (removed.length === 0) return;
  const integrations = await mcpIntegrationsById(db, organisationId, removed.map((c) => c.mcp_integration_id));
  for (const c of removed) {
    const integration = integrations.get(c.mcp_integration_id);
    if (integration?.auth_type !== 'oauth') continue;
    afterCommit(async () => {
      await (await loadUpstreamOAuth()).upstreamOAuth(deps).tokens.revokeUpstream(integration, c);
    });
  }
}
