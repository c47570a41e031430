import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { FORWARDS_TEXT, handleDataPlane } from '../../pipeline/handle-data-plane.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const TokenArray = Type.Array(Type.Integer());

export const EmbeddingsBody = Type.Object(
  {
    input: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 }), TokenArray, Type.Array(TokenArray)]),
    model: Type.Optional(Type.String()),
    encoding_format: Type.Optional(StringEnum(['float', 'base64'])),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** POST /v1/embeddings. */
export function registerEmbeddings(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/embeddings',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'embeddings' },
      schema: { body: EmbeddingsBody, tags: ['data plane'], summary: 'Create embeddings' },
    },
    (request, reply) => handleDataPlane(deps, request, reply, 'embeddings', request.body as Record<string, unknown>, FORWARDS_TEXT),
  );
}
