import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { handleDataPlane } from '../../pipeline/handle-data-plane.js';

/**
 * The rerank body: `model`, `query`, at least one document (a string or an object with `text`),
 * `top_n` ≥ 1, and the optional fields some providers take. Other fields pass through.
 */
export const RerankBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    query: Type.String(),
    documents: Type.Array(Type.Union([Type.String(), Type.Object({ text: Type.String() }, { additionalProperties: true })]), {
      minItems: 1,
    }),
    top_n: Type.Optional(Type.Integer({ minimum: 1 })),
    return_documents: Type.Optional(Type.Boolean()),
    max_tokens_per_doc: Type.Optional(Type.Integer({ minimum: 1 })),
    rank_fields: Type.Optional(Type.Array(Type.String())),
    truncation: Type.Optional(Type.Boolean()),
    priority: Type.Optional(Type.Integer()),
    parameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** POST /v1/rerank. */
export function registerRerank(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/rerank',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'rerank' },
      schema: { body: RerankBody, tags: ['data plane'], summary: 'Rerank documents against a query' },
    },
    (request, reply) => handleDataPlane(deps, request, reply, 'rerank', request.body as Record<string, unknown>),
  );
}
