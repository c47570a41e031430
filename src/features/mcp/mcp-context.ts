import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { principalOfKey, type Principal } from '../../kernel/principal.js';
import { sectionOf } from '../../runtime/snapshot.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { upstreamHeadersOf } from '../../data-plane/pipeline/upstream-headers.js';
import type { McpSession } from '../../infra/store/repos/mcp.js';
import { MCP_SECTION, type McpRoute, type McpSection } from './mcp-section.js';
import type { UpstreamSessionState, UpstreamTarget } from './upstream-link.js';

/**
 * The MCP server a request names (`/v1/mcp/{slug}/mcp`, in the key's workspace, from the runtime
 * snapshot): 404 `not_found` for an unknown slug or another workspace's server.
 */
export function routeOf(deps: GatewayDeps, request: FastifyRequest): McpRoute {
  const slug = (request.params as { slug: string }).slug;
  const route = sectionOf<McpSection>(deps.runtime.current, MCP_SECTION)?.bySlug.get(`${request.gw.workspaceId}:${slug}`);
  if (!route) throw new GatewayError('not_found', `Unknown MCP server '${slug}'.`, { param: 'slug' });
  return route;
}

/** The principal of the request (authenticated by the auth hook). */
export function principalOfRequest(request: FastifyRequest): Principal {
  const key = request.gw.key;
  if (!key) throw new GatewayError('invalid_api_key');
  return principalOfKey(key);
}

/**
 * `default_user_access: deny` keeps a server from users (user keys, sessions) who are not admins of
 * the workspace: 403 `forbidden`. Service keys act for the workspace and are let through.
 */
export function assertAccess(route: McpRoute, principal: Principal): void {
  if (route.server.default_user_access === 'allow' || principal.userId === null || principal.workspaceRole === 'admin') return;
  throw new GatewayError(
    'forbidden',
    `MCP server '${route.server.slug}' is closed to users by default (default_user_access: deny); a workspace admin may use it.`,
  );
}

/** Whether a stored session belongs to this principal: the same user, or for service keys the same key. */
export function sessionBelongsTo(session: McpSession, principal: Principal): boolean {
  if (session.user_id !== null) return principal.userId === session.user_id;
  return principal.userId === null && principal.keyId === session.key_id;
}

/**
 * The upstream of a route: its static headers (opened from the secret box once per loaded integration)
 * overridden by its secret mappings (resolved for the server's workspace through the resolver's cache;
 * 502 naming the reference when one cannot be), never logged or answered; `bearer` (an `auth_type:
 * oauth` upstream) is the user's own access token, sent as `Authorization`.
 */
export async function targetOf(deps: GatewayDeps, route: McpRoute, bearer?: string): Promise<UpstreamTarget> {
  const i = route.integration;
  const headers = await upstreamHeadersOf(
    deps,
    i,
    { id: i.id, sealed: i.headers_ciphertext, secretMappings: i.secret_mappings },
    route.server.workspace_id,
  );
  if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
  return { url: i.url, transport: i.transport, headers };
}

/** The upstream side of a stored session. */
export function stateOf(session: McpSession): UpstreamSessionState {
  return { upstreamSessionId: session.upstream_session_id, protocolVersion: session.protocol_version };
}
