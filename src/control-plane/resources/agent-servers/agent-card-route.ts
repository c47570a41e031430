import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { CustomHostGuard } from '../../../routing/custom-host-guard.js';
import { agentCardCache } from '../../../features/agents/agent-card-cache.js';
import { gatewayAgentUrl, rewriteAgentCard } from '../../../features/agents/rewrite-agent-card.js';
import { agentHeadersOf } from '../../../features/agents/agent-proxy-route.js';
import { getAgentServer } from '../../../infra/store/repos/agent-servers.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';

/** Longest time the card fetch may take (and less when `GATEWAY_AGENT_TIMEOUT_MS` is shorter). */
const CARD_TIMEOUT_MS = 10_000;

const Params = Type.Object({ id: Type.String({ minLength: 1 }) });
const Query = Type.Object({ workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });
const Card = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'The agent card (A2A v0.3 or v1.0 shape, as the agent server sent it) with its interface URLs rewritten to the gateway and its signatures removed.',
});

/** The base URL callers reach the gateway at: `GATEWAY_PUBLIC_URL`, else the request's own scheme and host. */
function publicBase(deps: GatewayDeps, request: FastifyRequest): string {
  return deps.settings.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * `GET /v1/agent-servers/{id}/agent-card` (control-plane.md §10). Hand-written rather than a resource
 * action because it answers a conditional GET: its `ETag` (a hash of the card it answers) and 304 on
 * a matching `If-None-Match`, which an action's JSON answer cannot express. The upstream card is read
 * through the custom-host guard with the agent server's headers (its secret mappings resolved) and the caller's `A2A-Version`
 * (`fetch-agent-card.ts`), revalidated with its own `ETag` (`agent-card-cache.ts`), and rewritten for
 * callers of the gateway (`rewrite-agent-card.ts`).
 */
export function registerAgentCardRoute(app: FastifyInstance, deps: GatewayDeps): void {
  const guard = new CustomHostGuard(deps.http.outbound);
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/agent-servers/:id/agent-card',
    {
      config: { permission: 'agent_servers.read' },
      schema: {
        params: Params,
        querystring: Query,
        tags: ['agent servers'],
        summary: "Read an agent server's card, as callers of the gateway see it",
        response: { 200: Card, 304: Type.Null(), '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const scope = tenantScope(principal, deps.runtime.current, request.query.workspace_id);
      const server = await getAgentServer(deps.store.db, scope, request.params.id);
      if (!server) throw new GatewayError('not_found', `Unknown agent server '${request.params.id}'.`, { param: 'id' });
      const version = typeof request.headers['a2a-version'] === 'string' ? request.headers['a2a-version'].trim() : '';
      const { card } = await agentCardCache.read(
        { serverId: server.id, url: server.url, updatedAt: server.updated_at, version },
        {
          http: deps.http,
          guard,
          url: server.url,
          headers: { ...(await agentHeadersOf(deps, server)), ...(version ? { 'a2a-version': version } : {}) },
          timeoutMs: Math.min(CARD_TIMEOUT_MS, deps.settings.agentTimeoutMs),
        },
      );
      const answer = rewriteAgentCard(card, gatewayAgentUrl(publicBase(deps, request), server.slug), server.skills_allow);
      const body = JSON.stringify(answer);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag).header('cache-control', 'no-cache').header('vary', 'A2A-Version');
      const match = request.headers['if-none-match'];
      if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))
        return reply.code(304).send(null);
      return reply.code(200).send(answer);
    },
  );
}
