import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import type { DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import { recordCompletion } from '../../data-plane/pipeline/record-completion.js';
import { readGatewayHeaders } from '../../data-plane/pipeline/read-gateway-headers.js';
import { requestDefaults } from '../../data-plane/pipeline/request-defaults.js';
import type { McpServer } from '../../infra/store/repos/mcp.js';

/** What an argument's value is logged as: arguments are redacted by default, only their names are kept. */
const REDACTED = '[redacted]';

/**
 * The data-plane request of one `tools/call`, as the request-level hooks (rate limits, usage limits)
 * and the request log see it: endpoint `mcp` (policies match it with `endpoint_type: mcp`), the
 * request's metadata (`x-gateway-metadata`) plus `mcp_server`, `mcp_tool` and the argument names with
 * their values redacted.
 */
export function toolCallRequest(request: FastifyRequest, server: McpServer, tool: string, args: unknown): DataPlaneRequest {
  const gh = readGatewayHeaders(request.headers, requestDefaults(request.gw.key));
  const argNames = args !== null && typeof args === 'object' && !Array.isArray(args) ? Object.keys(args) : [];
  return {
    ctx: request.gw,
    // `mcp` is an endpoint of the hooks and the log, not of a provider: no provider adapter sees it.
    endpoint: 'mcp' as ProviderEndpointKind,
    body: {},
    stream: false,
    metadata: {
      ...gh.metadata,
      mcp_server: server.slug,
      mcp_tool: tool,
      mcp_arguments: JSON.stringify(Object.fromEntries(argNames.map((n) => [n, REDACTED]))),
    },
    headers: request.headers,
    config: null,
    responseHeaders: {},
    locals: {},
  };
}

/** Runs the request-level hooks before a tool call; a refusal (429 of a limit, ...) is thrown as a GatewayError. */
export async function admitToolCall(deps: GatewayDeps, dp: DataPlaneRequest): Promise<void> {
  for (const hook of deps.hooks) {
    const pending = hook.before?.(dp);
    if (pending) await pending;
  }
}

/**
 * Records a finished tool call: the request log row (endpoint `mcp`, provider = the server's slug,
 * model = the tool, status, latency, user) and the hooks' `after` (usage settlement).
 */
export function recordToolCall(
  deps: GatewayDeps,
  dp: DataPlaneRequest,
  server: McpServer,
  tool: string,
  status: number,
  startedAt: number,
  error?: GatewayError,
): void {
  recordCompletion(deps, dp, {
    status,
    error,
    trace: { provider: server.slug, model: tool, retries: 0, attempts: [] },
    latencyMs: Date.now() - startedAt,
  });
}
