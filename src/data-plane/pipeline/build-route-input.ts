import type { FastifyRequest } from 'fastify';
import { LazyAbort, type AbortSource } from '../../foundation/lib/lazy-abort.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';
import type { RouteInput } from '../../routing/route-input.js';
import type { DataPlaneRequest } from './data-plane-hook.js';
import type { GatewayHeaders } from './read-gateway-headers.js';

/**
 * The routing engine's view of a data-plane request: the body and metadata as the hooks left them,
 * the gateway headers, and the request's shared `locals`. The one place that builds a RouteInput.
 */
export function buildRouteInput(
  request: FastifyRequest,
  dp: DataPlaneRequest,
  gh: GatewayHeaders,
  abort: AbortSource,
  endpoint: ProviderEndpointKind,
  sourceText?: string,
): RouteInput {
  if (abort instanceof LazyAbort) return new LazyRouteInput(request, dp, gh, abort, endpoint, sourceText);
  const signal = abort;
  return {
    endpoint,
    body: dp.body,
    sourceText,
    stream: dp.stream,
    headers: request.headers,
    metadata: dp.metadata,
    pathname: pathOf(request.url),
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

/**
 * A RouteInput whose `signal` is created only when read (a class: the getter lives on the prototype,
 * no closure per request).
 */
class LazyRouteInput implements RouteInput {
  readonly endpoint: ProviderEndpointKind;
  readonly body: Record<string, unknown>;
  readonly sourceText: string | undefined;
  readonly stream: boolean;
  readonly headers: RouteInput['headers'];
  readonly metadata: Record<string, string>;
  readonly pathname: string;
  readonly organisationId: string;
  readonly workspaceId: string;
  readonly headerTarget: RouteInput['headerTarget'];
  readonly forwardHeaderNames: readonly string[] | null;
  readonly requestTimeoutMs: number | null;
  readonly cacheForceRefresh: boolean;
  readonly clientAbort: LazyAbort;
  readonly locals: Record<string, unknown>;

  constructor(
    request: FastifyRequest,
    dp: DataPlaneRequest,
    gh: GatewayHeaders,
    abort: LazyAbort,
    endpoint: ProviderEndpointKind,
    sourceText: string | undefined,
  ) {
    this.endpoint = endpoint;
    this.body = dp.body;
    this.sourceText = sourceText;
    this.stream = dp.stream;
    this.headers = request.headers;
    this.metadata = dp.metadata;
    this.pathname = pathOf(request.url);
    this.organisationId = dp.ctx.organisationId;
    this.workspaceId = dp.ctx.workspaceId;
    this.headerTarget = dp.headerTarget ?? gh.target;
    this.forwardHeaderNames = gh.forwardHeaderNames;
    this.requestTimeoutMs = gh.requestTimeoutMs;
    this.cacheForceRefresh = gh.cacheForceRefresh;
    this.clientAbort = abort;
    this.locals = dp.locals;
  }

  get signal(): AbortSignal {
    return this.clientAbort.signal;
  }
}

/** The URL's path without its query (no array per request, unlike `split`). */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
