import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';

/** GET /health (no key) and GET /metrics (Prometheus text). */
export function registerHealth(app: FastifyInstance, deps: GatewayDeps): void {
  app.get('/health', { schema: { tags: ['operations'], summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics' } }, async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(text);
  });
}
