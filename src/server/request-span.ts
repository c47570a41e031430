import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewaySpan, Tracing } from '../infra/observability/tracing.js';

/**
 * Starts the SERVER span of a `/v1` request (joining its `traceparent`), named `<method> <route>`, and
 * ends it when the response is done (also for streamed and hijacked answers, and when the client leaves),
 * with the answer's status; a status of 500 or more marks it failed.
 */
export function startRequestSpan(tracing: Tracing, request: FastifyRequest, reply: FastifyReply): GatewaySpan {
  const url = request.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const pattern = request.routeOptions.url;
  const route = pattern ?? path;
  const span = tracing.startRequest(
    pattern === undefined ? `${request.method} ${path}` : spanName(request.method, pattern),
    request.headers,
    {
      'http.request.method': request.method,
      'http.route': route,
      'url.path': path,
      'gateway.request.id': request.id,
    },
  );
  reply.raw.once('close', () => {
    const status = reply.raw.statusCode;
    span.set({ 'http.response.status_code': status });
    if (status >= 500) span.fail(String(status));
    span.end();
  });
  return span;
}

/**
 * `<method> <route>` per registered route pattern and method, built once (a string built per request is
 * hashed afresh by the span encoder's caches). Bounded all the same.
 */
const SPAN_NAMES = new Map<string, Map<string, string>>();
const MAX_ROUTES = 512;

function spanName(method: string, route: string): string {
  let byMethod = SPAN_NAMES.get(route);
  const known = byMethod?.get(method);
  if (known !== undefined) return known;
  const name = `${method} ${route}`;
  if (!byMethod && SPAN_NAMES.size < MAX_ROUTES) SPAN_NAMES.set(route, (byMethod = new Map()));
  byMethod?.set(method, name);
  return name;
}
