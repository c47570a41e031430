import type { FastifyRequest } from 'fastify';
import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from './deps.js';
import type { DataPlaneEndpoint } from './data-plane-hook.js';
import type { RequestContext } from './request-context.js';
import { timeOrderedId } from '../../foundation/lib/ids.js';
import { logsBodies } from './log-bodies.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route is a data-plane endpoint whose answers are accounted (request log, metrics) under this
     * name: the one error handler then accounts for a request it refused before its handler did
     * (validation, authentication, a bad gateway header).
     */
    dataPlane?: DataPlaneEndpoint;
  }
}

/** Requests whose failure `recordCompletion` accounted for already (the error handler then does not). */
const accounted = new WeakSet<RequestContext>();

/** Notes that a failed request's answer was accounted for (called on the error path only). */
export function markAccounted(ctx: RequestContext): void {
  accounted.add(ctx);
}

/** The workspace and organisation of an authenticated request, or undefined (no key, or an organisation key without a default workspace). */
function tenantOf(ctx: RequestContext): { organisationId: string; workspaceId: string } | undefined {
  if (!ctx.key) return undefined;
  try {
    return { organisationId: ctx.organisationId, workspaceId: ctx.workspaceId };
  } catch {
    return undefined;
  }
}

/**
 * Accounts for a data-plane request refused before its handler accounted for it (a body that fails
 * validation, a bad gateway header, an unknown or unauthorised key): counted in
 * `gateway_requests_total` like every answer, and, when the request authenticated (it then has a
 * workspace), a request-log row with the status and the error (code, message, param). An
 * unauthenticated request has no tenant to log it in: it is counted and has its stdout line only.
 * Never throws into the error path.
 */
export function recordRefusal(deps: GatewayDeps, request: FastifyRequest, error: GatewayError): void {
  const endpoint = request.routeOptions.config?.dataPlane;
  const ctx = request.gw as RequestContext | null;
  if (endpoint === undefined || !ctx || accounted.has(ctx)) return;
  accounted.add(ctx);
  try {
    const body = request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : undefined;
    const model = typeof body?.model === 'string' ? body.model.slice(0, 256) : 'unknown';
    const latencyMs = Date.now() - ctx.startedAt;
    deps.metrics.observeRequest({ endpoint, provider: 'none', model, status: error.status, seconds: latencyMs / 1000 });
    const tenant = tenantOf(ctx);
    if (!tenant || !deps.settings.requestLog) return;
    const bodies = logsBodies(deps.runtime.current, ctx);
    deps.logs.push({
      id: timeOrderedId('log_'),
      organisation_id: tenant.organisationId,
      workspace_id: tenant.workspaceId,
      api_key_id: ctx.key?.id ?? null,
      user_id: ctx.key?.user?.id ?? ctx.key?.subject ?? null,
      trace_id: ctx.traceId,
      endpoint,
      provider: null,
      model,
      status: error.status,
      stream: body?.stream === true ? 1 : 0,
      cache_status: null,
      config_id: null,
      prompt_id: null,
      target_path: null,
      retry_count: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost: 0,
      latency_ms: Math.round(latencyMs),
      metadata: '{}',
      error: JSON.stringify(error.toBody().error),
      hook_results: null,
      created_at: ctx.startedAt,
      unit_prices: null,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      attempts: [],
      ttfb_ms: null,
      request_body: bodies ? body : undefined,
      response_body: bodies ? error.toBody() : undefined,
    });
  } catch (err) {
    deps.logger.warn({ err }, 'request accounting failed');
  }
}
