import { logFailedRequest } from '../../infra/observability/log-failed-request.js';
import { markAccounted } from './record-refusal.js';
import { timeOrderedId } from '../../foundation/lib/ids.js';
import { logsBodies } from './log-bodies.js';
import { genAiOperationName } from '../../infra/observability/gen-ai-names.js';
import type { GatewayDeps } from './deps.js';
import type { CompletedRequest, DataPlaneRequest } from './data-plane-hook.js';
import { priceOfRequest } from './request-price.js';
import { unitPricesJson } from '../../infra/pricing/price-usage.js';

const SPAN_HEADERS = [
  ['x-gateway-span-id', 'span_id'],
  ['x-gateway-parent-span-id', 'parent_span_id'],
  ['x-gateway-span-name', 'span_name'],
] as const;

/**
 * The metadata a log row keeps: `x-gateway-metadata`, plus the span headers (decisions.md) as
 * `span_id`, `parent_span_id`, `span_name` when the request carried them (at most 256 characters each).
 */
function withSpans(dp: DataPlaneRequest): Record<string, string> {
  let out = dp.metadata;
  for (const [header, key] of SPAN_HEADERS) {
    const v = dp.headers[header];
    if (typeof v === 'string' && v.length > 0) out = { ...out, [key]: v.slice(0, 256) };
  }
  return out;
}

/**
 * Accounts for a finished data-plane request: metrics, the request log row (queued, written in
 * batches) with its cost and the unit prices used, and every hook's `after`. Never throws into the
 * response path.
 */
export function recordCompletion(deps: GatewayDeps, dp: DataPlaneRequest, done: CompletedRequest): void {
  try {
    const provider = done.trace.provider ?? 'none';
    const model = done.outcome?.model ?? done.trace.model ?? (typeof dp.body.model === 'string' ? dp.body.model : 'unknown');
    // Labels are bounded by Metrics: the model is kept only once a provider has answered with it.
    // A stream that failed after its headers never reached the error handler: its line is written here.
    if (done.error) {
      // The error handler, which the error may reach next, must not account for it a second time.
      markAccounted(dp.ctx);
      if (done.outcome)
        logFailedRequest(deps.logger, done.error, {
          requestId: dp.ctx.requestId,
          method: 'POST',
          path: dp.endpoint,
          latencyMs: done.latencyMs,
          model,
        });
    }
    deps.metrics.observeRequest({
      endpoint: dp.endpoint,
      provider,
      model,
      status: done.status,
      seconds: done.latencyMs / 1000,
      answeredModel: done.outcome?.model,
    });
    const usage = done.usage;
    // Priced here, after the answer, from memoised catalogue lookups (the usage-limit hook reads the same price).
    const price = priceOfRequest(done, dp.ctx.startedAt);
    if (done.trace.provider !== undefined) {
      // Plain literals on this path (no conditional spreads: a spread inside a literal builds it property by property).
      deps.metrics.observeGenAi({
        operation: genAiOperationName(dp.endpoint),
        provider,
        model,
        inputTokens: usage ? (usage.prompt_tokens ?? 0) : undefined,
        outputTokens: usage ? (usage.completion_tokens ?? 0) : undefined,
        seconds: done.latencyMs / 1000,
        errorType: done.error ? (done.error.publicCode ?? done.error.code) : undefined,
        cost: price.cost,
      });
    }
    for (const hook of deps.hooks) {
      try {
        hook.after?.(dp, done);
      } catch (err) {
        deps.logger.warn({ err, hook: hook.name }, 'data-plane hook failed after the answer');
      }
    }
    if (!deps.settings.requestLog) return;
    const u = usage;
    const t = price.tokens;
    const bodies = logsBodies(deps.runtime.current, dp.ctx);
    deps.logs.push({
      id: timeOrderedId('log_'),
      organisation_id: dp.ctx.organisationId,
      workspace_id: dp.ctx.workspaceId,
      api_key_id: dp.ctx.key?.id ?? null,
      user_id: dp.ctx.key?.user?.id ?? dp.ctx.key?.subject ?? null,
      trace_id: dp.ctx.traceId,
      endpoint: dp.endpoint,
      provider: done.trace.provider ?? null,
      model,
      status: done.status,
      stream: dp.stream ? 1 : 0,
      cache_status: done.outcome?.cacheStatus ?? null,
      config_id: dp.config?.id ?? null,
      prompt_id: typeof dp.locals.promptId === 'string' ? dp.locals.promptId : null,
      target_path: done.trace.path ?? null,
      retry_count: done.trace.retries,
      prompt_tokens: u?.prompt_tokens ?? 0,
      completion_tokens: u?.completion_tokens ?? 0,
      total_tokens: u?.total_tokens ?? 0,
      cost: price.cost,
      latency_ms: Math.round(done.latencyMs),
      metadata: JSON.stringify(withSpans(dp)),
      error: done.error ? JSON.stringify(done.error.toBody().error) : null,
      hook_results: dp.locals.hookResults === undefined ? null : JSON.stringify(dp.locals.hookResults),
      created_at: dp.ctx.startedAt,
      unit_prices: price.unitPrices ? unitPricesJson(price.unitPrices) : null,
      cached_tokens: t?.cacheRead ?? 0,
      cache_write_tokens: t?.cacheWrite ?? 0,
      reasoning_tokens: t?.reasoning ?? 0,
      // Serialised by the writer, in its batch (not here, on the request path).
      attempts: done.trace.attempts,
      ttfb_ms: done.trace.answeredAt === undefined ? null : done.trace.answeredAt - dp.ctx.startedAt,
      request_body: bodies ? dp.body : undefined,
      response_body: bodies ? (done.responseBody ?? null) : undefined,
    });
  } catch (err) {
    deps.logger.warn({ err }, 'request accounting failed');
  }
}
