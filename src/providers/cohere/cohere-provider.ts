import type { ProviderAdapter } from '../provider.js';
import { COHERE_BASE_URL } from './cohere-auth.js';
import { cohereChat } from './cohere-chat.js';
import { cohereEmbeddings } from './cohere-embed.js';
import { mapCohereError } from './cohere-error.js';
import { listCohereModels } from './cohere-models.js';
import { cohereRerank } from './cohere-rerank.js';

/**
 * Cohere: chat over the v2 Chat API (JSON and SSE events), embeddings over v2 Embed, rerank over v2 Rerank, Bearer auth,
 * `{message}` errors with Cohere's status kept.
 * @see https://docs.cohere.com/reference/about
 */
export const cohereProvider: ProviderAdapter = {
  name: 'cohere',
  endpoints: { chat: cohereChat, embeddings: cohereEmbeddings, rerank: cohereRerank },
  fixedOrigins: [COHERE_BASE_URL],
  mapError: mapCohereError,
  listModels: listCohereModels,
};
