import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MODERATION_MODEL, MODERATION_MODELS } from '../../../foundation/spec/moderations.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { handleDataPlane } from '../../pipeline/handle-data-plane.js';

const open = { additionalProperties: true };

/** A text part or an image part (a URL or a base64 data URL) of a multimodal moderation input. */
const ModerationPart = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }, open),
  Type.Object({ type: Type.Literal('image_url'), image_url: Type.Object({ url: Type.String() }, open) }, open),
]);

/**
 * The moderations body as the specification states it: `input` a string, an array of strings or an
 * array of text and image parts (required); `model` any model name (the documented ones are listed),
 * filled with `omni-moderation-latest` when absent.
 */
export const ModerationBody = Type.Object(
  {
    input: Type.Union([Type.String(), Type.Array(Type.String()), Type.Array(ModerationPart)]),
    model: Type.Optional(Type.String({ default: DEFAULT_MODERATION_MODEL, examples: [...MODERATION_MODELS] })),
  },
  open,
);

/** POST /v1/moderations. */
export function registerModerations(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/moderations',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'moderations' },
      schema: { body: ModerationBody, tags: ['data plane'], summary: 'Classify text and images against the moderation categories' },
    },
    (request, reply) => handleDataPlane(deps, request, reply, 'moderations', request.body as Record<string, unknown>),
  );
}
