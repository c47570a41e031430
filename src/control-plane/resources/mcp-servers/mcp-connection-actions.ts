import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { holds } from '../../../kernel/principal.js';
import { narrowTo } from '../../../kernel/tenant-scope.js';
import { assertAccess } from '../../../features/mcp/mcp-context.js';
import type { McpRoute } from '../../../features/mcp/mcp-section.js';
import { REFRESH_AHEAD_MS } from '../../../features/mcp/oauth/oauth-constants.js';
import { loadUpstreamOAuth } from '../../../features/mcp/oauth/load-upstream-oauth.js';
import { revokeUpstreamAfterCommit } from '../../../features/mcp/oauth/revoke-removed-connections.js';
import {
  deleteMcpConnection,
  getMcpIntegration,
  listMcpConnectionsOfWorkspace,
  type McpConnection,
  type McpServer,
} from '../../../infra/store/repos/mcp.js';
import { defineAction, type ResourceContext } from '../../resource/define-resource.js';
import { ListAnswer, MAX_PAGE, iso } from '../../../identity/paging.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** Largest page of `GET /v1/mcp-servers/{id}/connections` (control-plane.md §9). */
export const CONNECTIONS_MAX_PAGE = 500;

const ConnectAnswer = Type.Object({ authorization_url: Type.String(), expires_at: Type.String() });
const ConnectionItem = Type.Object({
  user_id: Type.String(),
  connected: Type.Boolean(),
  connected_at: Type.String(),
  expires_at: Nullable(Type.String()),
});
const ConnectionsQuery = Type.Object(
  {
    current_page: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE })),
    page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: CONNECTIONS_MAX_PAGE })),
  },
  { additionalProperties: false },
);
const RevokeQuery = Type.Object({ user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });
const Revoked = Type.Object({ object: Type.Literal('mcp_connection'), user_id: Type.String(), deleted: Type.Boolean() });

/** The server with its integration (as the endpoint sees it); 404 when the integration is gone. */
async function routeOf(ctx: ResourceContext, s: McpServer): Promise<McpRoute> {
  const integration = await getMcpIntegration(ctx.db, narrowTo(ctx.scope, s.workspace_id), s.mcp_integration_id);
  if (!integration)
    throw new GatewayError('not_found', `Unknown MCP integration '${s.mcp_integration_id}'.`, { param: 'mcp_integration_id' });
  return { server: s, integration };
}

/** The server with its integration; 409 when the integration does not use OAuth (connect and revoke need it). */
async function oauthRouteOf(ctx: ResourceContext, s: McpServer): Promise<McpRoute> {
  const route = await routeOf(ctx, s);
  if (route.integration.auth_type !== 'oauth')
    throw new GatewayError(
      'conflict',
      `MCP server '${s.slug}' does not use per-user OAuth (its integration's auth_type is '${route.integration.auth_type}').`,
    );
  return route;
}

/** Whether a stored connection can be used now: its token is live, or it can be refreshed. */
function usable(c: McpConnection, now: number): boolean {
  return c.expires_at === null || c.expires_at - now > REFRESH_AHEAD_MS || c.refresh_token_ciphertext !== '';
}

/**
 * `POST /v1/mcp-servers/{id}/connect` (scope `mcp.invoke`): an authorization URL at the upstream's
 * authorization server for the calling user to complete in a browser; its callback stores the user's
 * tokens. A service key acts for no user (400); `default_user_access: deny` applies as on the endpoint.
 */
export const connectAction = defineAction<McpServer, never, typeof ConnectAnswer>({
  verb: 'connect',
  method: 'POST',
  suffix: '/connect',
  permission: 'mcp.invoke',
  write: false,
  summary: "Start the calling user's OAuth connection to the MCP server's upstream: answers the authorization URL to open",
  answer: ConnectAnswer,
  async run(ctx, s) {
    const route = await oauthRouteOf(ctx, s);
    const userId = ctx.principal.userId;
    if (userId === null)
      throw new GatewayError(
        'invalid_request',
        "Upstream OAuth connections are per user: call connect with a user's key, session or JWT, not a service key.",
      );
    assertAccess(route, ctx.principal);
    const out = await (await loadUpstreamOAuth()).upstreamOAuth(ctx.deps).flow.start(route, userId, ctx.request);
    return { answer: { authorization_url: out.authorization_url, expires_at: iso(out.expires_at)! } };
  },
});

/**
 * `GET /v1/mcp-servers/{id}/connections` (scope `mcp_servers.read`): the upstream OAuth connections of
 * the workspace's members to this server's integration, oldest first, `page_size` up to 500. A server whose
 * integration does not use OAuth (`none`, `headers`) has none: an empty list, as the contract shapes it.
 */
export const listConnectionsAction = defineAction<
  McpServer,
  never,
  ReturnType<typeof ListAnswer<typeof ConnectionItem>>,
  typeof ConnectionsQuery
>({
  verb: 'list_connections',
  method: 'GET',
  suffix: '/connections',
  permission: 'mcp_servers.read',
  write: false,
  summary: "List the users' OAuth connections to the MCP server's upstream",
  query: ConnectionsQuery,
  answer: ListAnswer(ConnectionItem),
  async run(ctx, s, _body, query) {
    const route = await routeOf(ctx, s);
    if (route.integration.auth_type !== 'oauth') return { answer: { object: 'list' as const, data: [], total: 0 } };
    const size = query.page_size ?? 50;
    const { rows, total } = await listMcpConnectionsOfWorkspace(ctx.db, route.integration.id, s.workspace_id, {
      limit: size,
      offset: (query.current_page ?? 0) * size,
    });
    const now = ctx.now;
    return {
      answer: {
        object: 'list' as const,
        data: rows.map((c) => ({
          user_id: c.user_id,
          connected: usable(c, now),
          connected_at: iso(c.connected_at)!,
          expires_at: iso(c.expires_at),
        })),
        total,
      },
    };
  },
});

/**
 * `DELETE /v1/mcp-servers/{id}/connections?user_id=` (scope `mcp.invoke`): revokes one connection. A user
 * principal revokes only its own (`user_id` omitted or its own; another is 403); a service key must name
 * `user_id` (400) and hold `mcp_servers.write` (403), and the user must be a member of the server's
 * workspace. 404 when there is no such connection. Audited; the runtime snapshot is not involved. After the
 * commit the upstream's authorization server is asked to revoke the connection's tokens (RFC 7009), in the background.
 */
export const revokeConnectionAction = defineAction<McpServer, never, typeof Revoked, typeof RevokeQuery>({
  verb: 'revoke_connection',
  method: 'DELETE',
  suffix: '/connections',
  permission: 'mcp.invoke',
  write: true,
  runtimeSections: [],
  summary: "Revoke a user's OAuth connection to the MCP server's upstream",
  query: RevokeQuery,
  answer: Revoked,
  async run(ctx, s, _body, query) {
    const route = await oauthRouteOf(ctx, s);
    const p = ctx.principal;
    let userId: string;
    if (p.userId !== null) {
      if (query.user_id !== undefined && query.user_id !== p.userId)
        throw new GatewayError('forbidden', 'A user may revoke only their own MCP connection (leave out user_id, or name your own).', {
          param: 'user_id',
        });
      userId = p.userId;
    } else {
      if (query.user_id === undefined)
        throw new GatewayError('invalid_request', 'A service key must name the user whose connection to revoke: ?user_id=<user id>.', {
          param: 'user_id',
        });
      if (!holds(p, 'mcp_servers.write'))
        throw new GatewayError('forbidden', "Revoking a user's MCP connection with a service key needs the 'mcp_servers.write' scope.");
      userId = query.user_id;
    }
    const member = await ctx.db
      .selectFrom('workspace_members')
      .select('user_id')
      .where('workspace_id', '=', s.workspace_id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    const connection = member && (await deleteMcpConnection(ctx.db, route.integration.id, userId));
    if (!connection)
      throw new GatewayError('not_found', `No MCP connection of user '${userId}' to MCP server '${s.slug}'.`, { param: 'user_id' });
    // Once the removal is committed: the upstream's authorization server revokes the tokens too (RFC 7009), when it can.
    revokeUpstreamAfterCommit(ctx.deps, route.integration, connection, ctx.afterCommit);
    return { answer: { object: 'mcp_connection' as const, user_id: userId, deleted: true }, details: { user_id: userId } };
  },
});
