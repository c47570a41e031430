import type { ImageGenerationRequest, ImagesResponse } from '../../foundation/spec/images.js';
import { imageAspectRatio, imageSizeOf } from '../../foundation/spec/images.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';

/** The Imagen model used when the request names none. */
export const DEFAULT_IMAGEN_MODEL = 'imagen-3.0-generate-002';

/** The Imagen model of a request (`models/` prefix removed). */
export function imagenModelOf(req: ImageGenerationRequest): string {
  return (req.model ?? DEFAULT_IMAGEN_MODEL).replace(/^models\//, '');
}

/**
 * The `:predict` body of an Imagen call: `instances: [{prompt}]`, `parameters.sampleCount` from `n`,
 * `aspectRatio` from `size` (1:1, 16:9, 9:16); `quality` and `style` have no Imagen equivalent.
 * @see https://ai.google.dev/gemini-api/docs/imagen#imagen-model
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api
 */
export function buildImagenBody(req: ImageGenerationRequest): Record<string, unknown> {
  return {
    instances: [{ prompt: req.prompt }],
    parameters: { sampleCount: req.n ?? 1, aspectRatio: imageAspectRatio(imageSizeOf(req)) },
  };
}

/**
 * Maps `{predictions: [{bytesBase64Encoded, mimeType, prompt?}]}` to the image result object with
 * inline images (`b64_json`); an enhanced prompt becomes `revised_prompt`. Filtered images
 * (`raiFilteredReason` only) are skipped; an answer without any image is a 502.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api#response_body
 */
export function mapImagenResponse(body: unknown, provider: string, created: number): ImagesResponse {
  const predictions = isObject(body) && Array.isArray(body.predictions) ? body.predictions.filter(isObject) : [];
  const data = predictions
    .filter((p) => typeof p.bytesBase64Encoded === 'string')
    .map((p) => ({ b64_json: p.bytesBase64Encoded as string, ...(typeof p.prompt === 'string' ? { revised_prompt: p.prompt } : {}) }));
  if (data.length === 0) {
    const reason = predictions.find((p) => typeof p.raiFilteredReason === 'string')?.raiFilteredReason;
    throw new GatewayError(
      'provider_error',
      typeof reason === 'string' ? `No image was returned: ${reason}` : 'The provider returned no image.',
      { provider, status: 502 },
    );
  }
  return { created, data };
}
