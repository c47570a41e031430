import type { ImageGenerationRequest, ImagesResponse } from '../../foundation/spec/images.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { EndpointAdapter, UpstreamCall } from '../provider.js';
import { buildImagenBody, imagenModelOf, mapImagenResponse } from '../google/google-images.js';
import { vertexAuthHeaders, type VertexTokenCache } from './vertex-ai-auth.js';
import { vertexModelUrl } from './vertex-ai-url.js';

/**
 * Imagen on Vertex AI: `…/publishers/google/models/{model}:predict` with the same body and answer as
 * the Gemini API's Imagen (the google provider's helpers), authorised like every Vertex call.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api
 */
export function createVertexImages(provider: string, tokens: VertexTokenCache): EndpointAdapter<ImageGenerationRequest, ImagesResponse> {
  return {
    async buildRequest(req, ctx): Promise<UpstreamCall> {
      const headers = {
        ...ctx.target.forwardHeaders,
        'content-type': 'application/json',
        ...(await vertexAuthHeaders(ctx, tokens, provider)),
      };
      return {
        url: vertexModelUrl(ctx.target, 'google', imagenModelOf(req), 'predict'),
        method: 'POST',
        headers,
        body: JSON.stringify(buildImagenBody(req)),
      };
    },
    mapResponse: (body, _req, ctx) => mapImagenResponse(body, provider, unixSeconds(ctx.clock)),
  };
}
