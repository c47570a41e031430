import type { FastifyReply, FastifyRequest } from 'fastify';
import { toGatewayError } from '../../foundation/errors/to-gateway-error.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';
import { compileConfig } from '../../routing/compile-config.js';
import type { CompiledNode } from '../../routing/compiled-config.js';
import type { Outcome, RouteTrace } from '../../routing/outcome.js';
import type { RouteInput } from '../../routing/route-input.js';
import { buildRouteInput } from './build-route-input.js';
import { resolveTarget, type TargetResolverDeps } from '../../routing/resolve-target.js';
import type { DataPlaneRequest } from './data-plane-hook.js';
import { requestDefaults } from './request-defaults.js';
import { readGatewayHeaders, type GatewayHeaders } from './read-gateway-headers.js';
import { recordCompletion } from './record-completion.js';
import { resolveConfig } from './resolve-config.js';
import type { GatewayDeps } from './deps.js';
import { ROUTING_SPAN } from '../../infra/observability/tracing.js';
import { endRoutingSpan } from './routing-span.js';

/** The node used when a request carries no config: one leaf filled from the request headers. */
const HEADER_ONLY: CompiledNode = compileConfig({}).root;

/** A data-plane request read from its headers, before any body is chosen. */
export interface PreparedRequest {
  gh: GatewayHeaders;
  dp: DataPlaneRequest;
  root: CompiledNode;
  signal: AbortSignal;
}

/** A routed request: its outcome and how it was routed (for headers and accounting). */
export interface RoutedRequest extends PreparedRequest {
  outcome: Outcome;
  trace: RouteTrace;
}

/** Reads headers and config like every data-plane route and arms the abort on client disconnect. */
export function prepareRequest(deps: GatewayDeps, request: FastifyRequest, reply: FastifyReply): PreparedRequest {
  const ctx = request.gw;
  const gh = readGatewayHeaders(request.headers, requestDefaults(ctx.key));
  const config = resolveConfig(gh.config, ctx.workspaceId, deps.runtime.current, deps.configs);
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort(new Error('client closed the connection'));
  });
  const dp: DataPlaneRequest = {
    ctx,
    endpoint: 'chat',
    body: {},
    stream: false,
    metadata: gh.metadata,
    headers: request.headers,
    config,
    responseHeaders: {},
    locals: {},
  };
  return { gh, dp, root: config?.root ?? HEADER_ONLY, signal: abort.signal };
}

function routeInput(
  request: FastifyRequest,
  p: PreparedRequest,
  endpoint: ProviderEndpointKind,
  body: Record<string, unknown>,
  stream: boolean,
): RouteInput {
  return buildRouteInput(request, { ...p.dp, body, stream }, p.gh, p.signal, endpoint);
}

/**
 * True when every target the config can reach serves `endpoint` natively (an adapter with that
 * endpoint: the Responses or Messages API) for the model it would be sent (the leaf's `override_params.model`,
 * else `model`); a target that cannot be resolved counts as not native.
 */
export function servesNatively(
  request: FastifyRequest,
  p: PreparedRequest,
  targets: TargetResolverDeps,
  endpoint: 'responses' | 'messages' | 'messages_count_tokens',
  model?: string,
): boolean {
  const input = routeInput(request, p, endpoint, {}, false);
  const leaves: CompiledNode[] = [];
  const walk = (n: CompiledNode) => (n.mode === 'leaf' ? leaves.push(n) : n.children.forEach(walk));
  walk(p.root);
  return leaves.every((leaf) => {
    try {
      const native = resolveTarget(leaf, input, targets).adapter.endpoints[endpoint];
      if (!native?.servesModel) return native !== undefined;
      const override = leaf.overrideParams?.model;
      return native.servesModel(typeof override === 'string' ? override : model);
    } catch {
      return false;
    }
  });
}

/**
 * Runs the request-level hooks and the routing engine for `endpoint` with `body`, like the chat route
 * does (fallback, retries, cache, guardrails and limits apply), and sets the routing headers on the
 * reply. A failure is accounted for and thrown.
 */
export async function routeThroughGateway(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  p: PreparedRequest,
  endpoint: ProviderEndpointKind,
  body: Record<string, unknown>,
): Promise<RoutedRequest> {
  const { dp } = p;
  dp.endpoint = endpoint;
  dp.body = body;
  dp.stream = body.stream === true;
  const trace: RouteTrace = { retries: 0, attempts: [] };
  let outcome: Outcome;
  try {
    for (const hook of deps.hooks) if (hook.before) await hook.before(dp);
    if (dp.ctx.span)
      dp.locals[ROUTING_SPAN] = dp.ctx.span.child('routing', 'internal', {
        'gateway.endpoint': endpoint,
        'gateway.config.id': dp.config?.id,
      });
    outcome = await deps.router.route(p.root, routeInput(request, p, endpoint, dp.body, dp.stream), trace);
    endRoutingSpan(dp, trace);
  } catch (err) {
    const g = toGatewayError(err);
    endRoutingSpan(dp, trace, g);
    reply.headers(routeHeaders(trace, dp.responseHeaders));
    recordCompletion(deps, dp, { status: g.status, error: g, trace, latencyMs: Date.now() - dp.ctx.startedAt });
    throw g;
  }
  reply.headers(routeHeaders(trace, dp.responseHeaders));
  reply.header('x-gateway-cache-status', outcome.cacheStatus);
  for (const [k, v] of Object.entries(outcome.headers)) reply.header(k, v);
  return { ...p, outcome, trace };
}

function routeHeaders(trace: RouteTrace, extra: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { ...extra };
  if (trace.provider) h['x-gateway-provider'] = trace.provider;
  if (trace.path) h['x-gateway-last-used-option-index'] = trace.path;
  h['x-gateway-retry-attempt-count'] = String(trace.retries);
  return h;
}
