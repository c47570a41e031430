import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { toGatewayError } from '../../../foundation/errors/to-gateway-error.js';
import { prefixedId } from '../../../foundation/lib/ids.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { ProviderEndpointKind } from '../../../providers/provider.js';
import { compileConfig } from '../../../routing/compile-config.js';
import type { CompiledNode } from '../../../routing/compiled-config.js';
import type { RouteTrace } from '../../../routing/outcome.js';
import type { RouteInput } from '../../../routing/route-input.js';
import type { AuthKey } from '../../../runtime/snapshot.js';
import type { BatchOutputLine } from '../../../foundation/spec/batches.js';
import type { Usage } from '../../../foundation/spec/chat.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { DataPlaneRequest } from '../../pipeline/data-plane-hook.js';
import { readGatewayHeaders } from '../../pipeline/read-gateway-headers.js';
import { recordCompletion } from '../../pipeline/record-completion.js';
import { resolveConfig } from '../../pipeline/resolve-config.js';
import { requestDefaults } from '../../pipeline/request-defaults.js';
import type { BatchRoute } from '../../../infra/store/repos/batches.js';
import { batchLineLocals, type BatchLineDispatch } from './batch-line-dispatch.js';

const HEADER_ONLY: CompiledNode = compileConfig({}).root;

/** The data-plane endpoint of each batch endpoint. */
export const BATCH_ENDPOINT_KINDS: Record<string, ProviderEndpointKind> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'completions',
  '/v1/embeddings': 'embeddings',
};

/** What one line produced: the output-file line and whether it succeeded. */
export interface LineResult {
  ok: boolean;
  line: BatchOutputLine;
}

/**
 * Runs one batch line through the gateway's own data plane, exactly as a request with the batch
 * creator's headers would go: config resolution, request-level hooks (limits, guardrails, prompts),
 * the routing engine (retries, fallbacks, cache, circuit breakers), then accounting and the request log.
 * `dispatch` goes with it to the batches interceptor: the send is recorded before it leaves and every
 * provider call carries the line's `Idempotency-Key`.
 * Never throws: a failure becomes the line's error answer (`response.status_code` and the error body).
 */
export async function runBatchLine(
  deps: GatewayDeps,
  args: {
    workspaceId: string;
    route: BatchRoute;
    key: AuthKey | undefined;
    endpoint: string;
    customId: string;
    body: Record<string, unknown>;
    signal: AbortSignal;
    dispatch: BatchLineDispatch;
  },
): Promise<LineResult> {
  const requestId = prefixedId('req_', 24);
  const ctx = {
    requestId,
    traceId: requestId,
    startedAt: Date.now(),
    key: args.key,
    organisationId: args.route.organisation_id,
    workspaceId: args.workspaceId,
  };
  const trace: RouteTrace = { retries: 0, attempts: [] };
  const endpoint = BATCH_ENDPOINT_KINDS[args.endpoint] ?? 'chat';
  const headers = args.route.headers;
  const dp: DataPlaneRequest = {
    ctx,
    endpoint,
    body: { ...args.body, stream: false },
    stream: false,
    metadata: {},
    headers,
    config: null,
    responseHeaders: {},
    locals: batchLineLocals(args.dispatch),
  };
  const id = prefixedId('batch_req_', 24);
  try {
    if (!args.key) throw new GatewayError('invalid_api_key', 'The gateway API key that created this batch no longer exists.');
    const gh = readGatewayHeaders(headers, requestDefaults(args.key));
    dp.metadata = gh.metadata;
    dp.headerTarget = { ...gh.target };
    dp.config = resolveConfig(gh.config, args.workspaceId, deps.runtime.current, deps.configs);
    for (const hook of deps.hooks) if (hook.before) await hook.before(dp);
    const input: RouteInput = {
      endpoint,
      body: dp.body,
      stream: false,
      headers,
      metadata: dp.metadata,
      pathname: args.endpoint,
      organisationId: ctx.organisationId,
      workspaceId: ctx.workspaceId,
      headerTarget: dp.headerTarget ?? gh.target,
      forwardHeaderNames: gh.forwardHeaderNames,
      requestTimeoutMs: gh.requestTimeoutMs,
      cacheForceRefresh: gh.cacheForceRefresh,
      signal: args.signal,
      locals: dp.locals,
    };
    const outcome = await deps.router.route(dp.config?.root ?? HEADER_ONLY, input, trace);
    if (!outcome.json) throw new GatewayError('internal_error', 'A batched request answered with a stream.');
    const value = outcome.extra ? { ...(outcome.json.value as object), ...outcome.extra } : outcome.json.value;
    const usage = isObject(value) && isObject(value.usage) ? (value.usage as unknown as Usage) : undefined;
    recordCompletion(deps, dp, { status: outcome.status, outcome, trace, usage, latencyMs: Date.now() - ctx.startedAt });
    const ok = outcome.status >= 200 && outcome.status < 300;
    return {
      ok,
      line: { id, custom_id: args.customId, response: { status_code: outcome.status, request_id: requestId, body: value }, error: null },
    };
  } catch (err) {
    const g = toGatewayError(err);
    recordCompletion(deps, dp, { status: g.status, error: g, trace, latencyMs: Date.now() - ctx.startedAt });
    return {
      ok: false,
      line: { id, custom_id: args.customId, response: { status_code: g.status, request_id: requestId, body: g.toBody() }, error: null },
    };
  }
}
