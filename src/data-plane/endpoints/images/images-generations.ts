import { Type } from 'typebox';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { schemaFailureMessage } from '../../../foundation/errors/to-gateway-error.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { FORWARDS_TEXT, handleDataPlane } from '../../pipeline/handle-data-plane.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const OLDER_SIZES = ['256x256', '512x512', '1024x1024'];
const NEWER_SIZES = ['1024x1024', '1792x1024', '1024x1792'];

/**
 * Per-model rules of the specification. The older model is `dall-e-2` (also when `model` is absent,
 * as OpenAI defaults to it): prompt ≤ 1000 characters, the first three sizes, no `quality`/`style`.
 * The newer model is `dall-e-3`: `n` = 1, the last three sizes, `quality` `standard`|`hd`, `style`
 * `vivid`|`natural`. Other models (gpt-image-1, Imagen, Titan, Stability, ...) get the generation-independent
 * rules only (prompt ≤ 4000, n 1–10); their `size`, `quality` and `style` values pass on untouched to an
 * OpenAI-speaking host, and a provider that maps sizes refuses one it cannot map.
 */
const PER_MODEL = [
  {
    if: { anyOf: [{ not: { required: ['model'] } }, { properties: { model: { const: 'dall-e-2' } }, required: ['model'] }] },
    then: { properties: { prompt: { maxLength: 1000 }, size: { enum: OLDER_SIZES }, quality: false, style: false } },
  },
  {
    if: { properties: { model: { const: 'dall-e-3' } }, required: ['model'] },
    then: {
      properties: {
        n: { const: 1 },
        size: { enum: NEWER_SIZES },
        quality: { enum: ['standard', 'hd'] },
        style: { enum: ['vivid', 'natural'] },
      },
    },
  },
];

/** The images body: every rule of the specification, per model generation; other fields pass through. */
export const ImageGenerationBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 4000 }),
    model: Type.Optional(Type.String({ minLength: 1 })),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    quality: Type.Optional(Type.String({ minLength: 1 })),
    response_format: Type.Optional(StringEnum(['url', 'b64_json'])),
    size: Type.Optional(Type.String({ minLength: 1 })),
    style: Type.Optional(Type.String({ minLength: 1 })),
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: true, allOf: PER_MODEL },
);

/** Turns the first schema failure into a 400 that names the field and, for a per-model rule, the model. */
function formatImageError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const first = errors[0]!;
  const missing = typeof first.params.missingProperty === 'string' ? `.${first.params.missingProperty}` : '';
  const param = `${dataVar}${first.instancePath.replace(/\//g, '.')}${missing}`;
  const rule = /^#\/allOf\/(\d)\//.exec(first.schemaPath ?? '');
  const model = rule ? (rule[1] === '0' ? "model 'dall-e-2' (the default when model is absent)" : "model 'dall-e-3'") : undefined;
  let message = first.keyword === 'false schema' ? 'is not supported' : schemaFailureMessage(first, 'invalid value');
  if (first.keyword === 'const') message = `must be ${JSON.stringify(first.params.allowedValue)}`;
  return new GatewayError('invalid_request', `${param}: ${message}${model ? ` for ${model}` : ''}`, { param });
}

/** POST /v1/images/generations. */
export function registerImagesGenerations(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/images/generations',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'images' },
      schema: { body: ImageGenerationBody, tags: ['data plane'], summary: 'Generate images through the routing config' },
      schemaErrorFormatter: formatImageError,
    },
    (request, reply) => handleDataPlane(deps, request, reply, 'images', request.body as Record<string, unknown>, FORWARDS_TEXT),
  );
}
