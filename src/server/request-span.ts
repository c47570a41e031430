import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewaySpan, Tracing } from '../observability/tracing.js';

/**
 * Starts the SERVER span of a `/v1` request (joining its `traceparent`), named `<method> <route>`, and
 * ends it when the response is done (also for streamed and hijacked answers, and when the client leaves),
 * with the answer's status; a status of 500 or more marks it failed.
 */
export function startRequestSpan(tracing: Tracing, request: FastifyRequest, reply: FastifyReply): GatewaySpan {
  const route = request.routeOptions.url ?? request.url.split('?')[0];
  const span = tracing.startRequest(`${request.method} ${route}`, request.headers, {
    'http.request.method': request.method,
    'http.route': route,
    'url.path': request.url.split('?')[0],
    'gateway.request.id': request.id,
  });
  reply.raw.once('close', () => {
    const status = reply.raw.statusCode;
    span.set({ 'http.response.status_code': status });
    if (status >= 500) span.fail(String(status));
    span.end();
  });
  return span;
}
