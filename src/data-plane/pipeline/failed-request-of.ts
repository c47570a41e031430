import type { FastifyRequest } from 'fastify';
import type { FailedRequest } from '../../infra/observability/log-failed-request.js';

/** The facts of a failed request for its log line (`request.gw` may be unset when parsing failed early). */
export function failedRequestOf(request: FastifyRequest): FailedRequest {
  const body = request.body as { model?: unknown } | undefined;
  const startedAt = (request.gw as { startedAt?: number } | null)?.startedAt ?? Date.now();
  return {
    requestId: request.id,
    method: request.method,
    path: request.url.split('?')[0] ?? request.url,
    latencyMs: Date.now() - startedAt,
    model: body !== null && typeof body === 'object' ? body.model : undefined,
  };
}
