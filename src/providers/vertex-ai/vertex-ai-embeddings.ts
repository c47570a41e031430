import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import { isObject } from '../../foundation/lib/json.js';
import type { EndpointAdapter, UpstreamCall } from '../provider.js';
import { embeddingTexts, encodeEmbedding } from '../google/google-embeddings.js';
import { googleModelOf } from '../google/google-chat.js';
import { vertexAuthHeaders, type VertexTokenCache } from './vertex-ai-auth.js';
import { vertexModelUrl } from './vertex-ai-url.js';

const DEFAULT_MODEL = 'text-embedding-005';

/**
 * Embeddings with Vertex AI text-embedding and gemini-embedding models through `:predict`
 * (`instances[].content`, `parameters.outputDimensionality`); token counts come from each
 * prediction's `statistics.token_count`. Reuses the google provider's input and encoding helpers.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 */
export function createVertexEmbeddings(provider: string, tokens: VertexTokenCache): EndpointAdapter<EmbeddingsRequest, EmbeddingsResponse> {
  return {
    async buildRequest(req, ctx): Promise<UpstreamCall> {
      const model = googleModelOf(req.model ?? DEFAULT_MODEL);
      const body: Record<string, unknown> = {
        instances: embeddingTexts(req).map((content) => ({
          content,
          ...(typeof req.task_type === 'string' ? { task_type: req.task_type } : {}),
        })),
      };
      if (req.dimensions !== undefined) body.parameters = { outputDimensionality: req.dimensions };
      const headers = {
        ...ctx.target.forwardHeaders,
        'content-type': 'application/json',
        ...(await vertexAuthHeaders(ctx, tokens, provider)),
      };
      return { url: vertexModelUrl(ctx.target, 'google', model, 'predict'), method: 'POST', headers, body: JSON.stringify(body) };
    },
    mapResponse(body, req) {
      const predictions = isObject(body) && Array.isArray(body.predictions) ? body.predictions.filter(isObject) : [];
      let promptTokens = 0;
      const data = predictions.map((p, index) => {
        const emb = isObject(p.embeddings) ? p.embeddings : {};
        if (isObject(emb.statistics) && typeof emb.statistics.token_count === 'number') promptTokens += emb.statistics.token_count;
        const values = Array.isArray(emb.values) ? (emb.values as number[]) : [];
        return { object: 'embedding' as const, index, embedding: encodeEmbedding(values, req.encoding_format) };
      });
      return {
        object: 'list',
        data,
        model: googleModelOf(req.model ?? DEFAULT_MODEL),
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      };
    },
  };
}
