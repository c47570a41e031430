import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { FORWARDS_TEXT, handleDataPlane } from '../../pipeline/handle-data-plane.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const TokenArray = Type.Array(Type.Integer());

/** The legacy text completions body with every rule of the specification. */
export const CompletionBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    prompt: Type.Union([Type.String(), Type.Array(Type.String()), TokenArray, Type.Array(TokenArray)]),
    best_of: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    echo: Type.Optional(Type.Boolean()),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    logit_bias: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 }))),
    logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 5 }))),
    max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 128 })),
    seed: Type.Optional(Type.Integer()),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()])),
    stream: Type.Optional(Type.Boolean()),
    stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }))),
    suffix: Type.Optional(Nullable(Type.String())),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** POST /v1/completions (legacy text completions). */
export function registerCompletions(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/completions',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'completions' },
      schema: { body: CompletionBody, tags: ['data plane'], summary: 'Create a text completion' },
    },
    (request, reply) => {
      const body = request.body as Record<string, unknown>;
      const n = typeof body.n === 'number' ? body.n : 1;
      if (typeof body.best_of === 'number' && body.best_of > 0 && body.best_of < n)
        throw new GatewayError('invalid_request', 'body.best_of must be greater than or equal to n.', { param: 'best_of' });
      if (body.stream === true && typeof body.best_of === 'number' && body.best_of > 1)
        throw new GatewayError('invalid_request', 'body.best_of results cannot be streamed.', { param: 'best_of' });
      if (body.stream_options != null && body.stream !== true)
        throw new GatewayError('invalid_request', 'body.stream_options is allowed only when stream is true.', { param: 'stream_options' });
      return handleDataPlane(deps, request, reply, 'completions', body, FORWARDS_TEXT);
    },
  );
}
