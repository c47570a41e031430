import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MODERATION_MODEL, MODERATION_MODELS } from '../../../foundation/spec/moderations.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { handleDataPlane } from '../../pipeline/handle-data-plane.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

/**
 * The moderations body as the specification states it: `input` a string (required), `model` one of
 * `text-moderation-stable` / `text-moderation-latest` (filled with the default when absent).
 */
export const ModerationBody = Type.Object(
  {
    input: Type.String(),
    model: Type.Optional(StringEnum(MODERATION_MODELS, { default: DEFAULT_MODERATION_MODEL })),
  },
  { additionalProperties: true },
);

/** POST /v1/moderations. */
export function registerModerations(app: FastifyInstance, deps: GatewayDeps): void {
  app.post('/v1/moderations', { config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'moderations' }, schema: { body: ModerationBody, tags: ['data plane'], summary: 'Classify text against the moderation categories' } }, (request, reply) =>
    handleDataPlane(deps, request, reply, 'moderations', request.body as Record<string, unknown>),
  );
}
