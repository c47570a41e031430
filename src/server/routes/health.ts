import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { buildInfo } from '../../foundation/lib/build-info.js';
import { Readiness } from '../readiness.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../foundation/lib/hash.js';

/** Whether the request carries `Authorization: Bearer <token>` (compared in constant time). */
function bearerMatches(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  if (!match) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(match[1]!)), Buffer.from(sha256Hex(token)));
}

/**
 * Probes (no key, never rate limited; operations.md §1) and GET /metrics (Prometheus text):
 * `/health` the process serves, with version and commit; `/health/live` the HTTP server accepts a
 * request (draining included; never touches the store); `/health/ready` 200 or 503 with the failing reasons.
 * With `GATEWAY_METRICS_TOKEN` set, /metrics answers only a request with `Authorization: Bearer <token>`
 * (else 401 `invalid_api_key`).
 */
export function registerHealth(app: FastifyInstance, deps: GatewayDeps): void {
  const { version, commit } = buildInfo();
  const readiness = new Readiness(deps.store, () => deps.runtime.loaded, deps.lifecycle);
  app.get('/health', { schema: { tags: ['operations'], summary: 'The process serves, with its version and commit' } }, async () => ({
    status: 'ok',
    version,
    commit,
  }));
  app.get('/health/live', { schema: { tags: ['operations'], summary: 'Liveness: the HTTP server accepts requests' } }, async () => ({
    status: 'ok',
  }));
  app.get(
    '/health/ready',
    { schema: { tags: ['operations'], summary: 'Readiness: store reachable, migrations applied, snapshot loaded, not draining' } },
    async (_request, reply) => {
      const report = await readiness.check();
      if (report.ready) return { status: 'ready', version, commit, checks: report.checks };
      return reply.code(503).send({ status: 'not_ready', reasons: report.reasons, checks: report.checks });
    },
  );
  const token = deps.settings.metricsToken;
  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics' } }, async (request, reply) => {
    if (token !== undefined && !bearerMatches(request, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new GatewayError('invalid_api_key', 'GET /metrics needs Authorization: Bearer <GATEWAY_METRICS_TOKEN>.', {
        param: 'authorization',
      });
    }
    const text = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(text);
  });
}
