import type { RerankRequest, RerankResponse } from '../../foundation/spec/rerank.js';
import type { EndpointAdapter, ProviderAdapter } from '../provider.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/create-openai-compatible-provider.js';
import { baseUrlOf, openAIHeaders, type OpenAICompatibleSpec } from '../openai-compatible/openai-compatible-spec.js';
import { joinUrl } from '../openai-compatible/url.js';
import { buildVoyageRerankBody, mapVoyageRerankResponse } from './voyage-rerank.js';

const spec: OpenAICompatibleSpec = {
  name: 'voyage',
  baseUrl: 'https://api.voyageai.com/v1',
  without: ['chat', 'completions', 'images', 'moderations'],
};

const rerank: EndpointAdapter<RerankRequest, RerankResponse> = {
  buildRequest: (req, ctx) => ({
    url: joinUrl(baseUrlOf(spec, ctx.target), '/rerank'),
    method: 'POST',
    headers: openAIHeaders(spec, ctx.target),
    body: JSON.stringify(buildVoyageRerankBody(req)),
  }),
  mapResponse: (body, req) => mapVoyageRerankResponse(body, req),
};

/**
 * Voyage AI: embeddings on its OpenAI-like `/v1/embeddings` (the OpenAI-compatible base) and rerank
 * on `/v1/rerank` (`top_k`, `data` answers). Bearer auth.
 * @see https://docs.voyageai.com/reference/embeddings-api
 * @see https://docs.voyageai.com/reference/reranker-api
 */
export const voyageProvider: ProviderAdapter = (() => {
  const { name, endpoints, mapError, fixedOrigins } = createOpenAICompatibleProvider(spec);
  return { name, endpoints: { ...endpoints, rerank }, mapError, fixedOrigins };
})();
