import { VERTEX_AI_SETTINGS } from './vertex-ai-settings.js';
import type { ProviderAdapter } from '../provider.js';
import { VertexTokenCache } from './vertex-ai-auth.js';
import { createVertexChat } from './vertex-ai-chat.js';
import { createVertexEmbeddings } from './vertex-ai-embeddings.js';
import { createVertexImages } from './vertex-ai-images.js';
import { createVertexMessages } from './vertex-ai-messages.js';
import { mapVertexError } from './vertex-ai-error.js';

const NAME = 'vertex-ai';

/** Options of a Vertex AI adapter. */
export interface VertexAiProviderOptions {
  /** The access-token cache; one per process by default, a fresh one in tests. */
  tokens?: VertexTokenCache;
}

/**
 * Vertex AI: Gemini models (Gemini body, via the google provider's converters) and Claude models
 * (Anthropic body on rawPredict, via the anthropic provider's converters), embeddings through
 * `:predict`, Imagen images through `:predict`, and the Messages API for Claude models natively
 * (`:rawPredict` / `:streamRawPredict`, passed through). Config: `cloud2_project_id`, `cloud2_region`, `cloud2_service_account_json` (exchanged for
 * an access token), or an access token as `api_key`. This folder imports from `../google/` and
 * `../anthropic/` by design: the bodies are the same as on those providers.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest
 */
export function createVertexAiProvider(opts: VertexAiProviderOptions = {}): ProviderAdapter {
  const tokens = opts.tokens ?? new VertexTokenCache();
  return {
    name: NAME,
    endpoints: {
      chat: createVertexChat(NAME, tokens),
      embeddings: createVertexEmbeddings(NAME, tokens),
      images: createVertexImages(NAME, tokens),
      messages: createVertexMessages(NAME, tokens),
    },
    mapError: (status, body, headers) => mapVertexError(NAME, status, body, headers),
    settings: VERTEX_AI_SETTINGS,
  };
}

/** The registered Vertex AI adapter (one token cache for the process). */
export const vertexAiProvider: ProviderAdapter = createVertexAiProvider();
