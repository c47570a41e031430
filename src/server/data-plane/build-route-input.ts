import type { FastifyRequest } from 'fastify';
import { LazyAbort, type AbortSource } from '../../lib/lazy-abort.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';
import type { RouteInput } from '../../routing/route-input.js';
import type { DataPlaneRequest } from './data-plane-hook.js';
import type { GatewayHeaders } from './read-gateway-headers.js';

/**
 * The routing engine's view of a data-plane request: the body and metadata as the hooks left them,
 * the gateway headers, and the request's shared `locals`. The one place that builds a RouteInput.
 */
export function buildRouteInput(request: FastifyRequest, dp: DataPlaneRequest, gh: GatewayHeaders, abort: AbortSource, endpoint: ProviderEndpointKind = dp.endpoint): RouteInput {
  if (abort instanceof LazyAbort) {
    return {
      endpoint,
      body: dp.body,
      stream: dp.stream,
      headers: request.headers,
      metadata: dp.metadata,
      pathname: request.url.split('?', 1)[0]!,
      organisationId: dp.ctx.organisationId,
      workspaceId: dp.ctx.workspaceId,
      headerTarget: dp.headerTarget ?? gh.target,
      forwardHeaderNames: gh.forwardHeaderNames,
      requestTimeoutMs: gh.requestTimeoutMs,
      cacheForceRefresh: gh.cacheForceRefresh,
      get signal() {
        return abort.signal;
      },
      clientAbort: abort,
      locals: dp.locals,
    };
  }
  const signal = abort;
  return {
    endpoint,
    body: dp.body,
    stream: dp.stream,
    headers: request.headers,
    metadata: dp.metadata,
    pathname: request.url.split('?', 1)[0]!,
    organisationId: dp.ctx.organisationId,
    workspaceId: dp.ctx.workspaceId,
    headerTarget: dp.headerTarget ?? gh.target,
    forwardHeaderNames: gh.forwardHeaderNames,
    requestTimeoutMs: gh.requestTimeoutMs,
    cacheForceRefresh: gh.cacheForceRefresh,
    signal,
    locals: dp.locals,
  };
}
