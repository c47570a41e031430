import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import type { ModelInfo } from '../../foundation/spec/models.js';
import { isObject } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, EndpointAdapter, ProviderAdapter, UpstreamCall } from '../provider.js';
import { joinUrl } from '../openai-compatible/url.js';
import { googleAuthHeaders } from './google-auth.js';
import { buildGoogleChatBody, googleModelOf, mapGoogleResponse } from './google-chat.js';
import { buildGoogleEmbeddingsBody, mapGoogleEmbeddingsResponse } from './google-embeddings.js';
import { mapGoogleError } from './google-error.js';
import type { ImageGenerationRequest, ImagesResponse } from '../../foundation/spec/images.js';
import { buildImagenBody, imagenModelOf, mapImagenResponse } from './google-images.js';
import { createGoogleStreamMapper } from './google-stream.js';

const NAME = 'google';
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
const API_VERSION = 'v1beta';
const DEFAULT_EMBEDDING_MODEL = 'gemini-embedding-001';

function baseUrl(ctx: CallContext): string {
  return ctx.target.customHost ?? DEFAULT_BASE_URL;
}

function call(ctx: CallContext, path: string, body: Record<string, unknown>): UpstreamCall {
  return {
    url: joinUrl(baseUrl(ctx), `/${API_VERSION}/${path}`),
    method: 'POST',
    headers: { ...ctx.target.forwardHeaders, 'content-type': 'application/json', ...googleAuthHeaders(ctx.target) },
    body: JSON.stringify(body),
  };
}

const chat: EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
  buildRequest(req, ctx) {
    const model = googleModelOf(req.model);
    const method = ctx.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return call(ctx, `models/${model}:${method}`, buildGoogleChatBody(req));
  },
  mapResponse: (body, req, ctx) => mapGoogleResponse(body, googleModelOf(req.model), unixSeconds(ctx.clock)),
  createStreamMapper: (req, ctx) => createGoogleStreamMapper(NAME, googleModelOf(req.model), unixSeconds(ctx.clock)),
};

const embeddings: EndpointAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
  buildRequest(req, ctx) {
    const model = googleModelOf(req.model ?? DEFAULT_EMBEDDING_MODEL);
    const { method, body } = buildGoogleEmbeddingsBody(req, model);
    return call(ctx, `models/${model}:${method}`, body);
  },
  mapResponse: (body, req) => mapGoogleEmbeddingsResponse(body, req, googleModelOf(req.model ?? DEFAULT_EMBEDDING_MODEL)),
};

const images: EndpointAdapter<ImageGenerationRequest, ImagesResponse> = {
  buildRequest: (req, ctx) => call(ctx, `models/${imagenModelOf(req)}:predict`, buildImagenBody(req)),
  mapResponse: (body, _req, ctx) => mapImagenResponse(body, NAME, unixSeconds(ctx.clock)),
};

/**
 * The Gemini API (Google AI Studio): chat through `generateContent` / `streamGenerateContent`,
 * embeddings through `embedContent` / `batchEmbedContents`, Imagen images through `:predict`, key in `x-goog-api-key`.
 * `custom_host` replaces `https://generativelanguage.googleapis.com`.
 * @see https://ai.google.dev/api
 */
export const googleProvider: ProviderAdapter = {
  name: NAME,
  endpoints: { chat, embeddings, images },
  fixedOrigins: [DEFAULT_BASE_URL],
  mapError: (status, body, headers) => mapGoogleError(NAME, status, body, headers),
  async listModels(ctx) {
    const headers = { ...ctx.target.forwardHeaders, ...googleAuthHeaders(ctx.target) };
    const parsed = await ctx.http.getJson(
      { url: joinUrl(baseUrl(ctx), `/${API_VERSION}/models?pageSize=1000`), headers, signal: ctx.signal },
      NAME,
      (status, body, h) => mapGoogleError(NAME, status, body, h),
    );
    const models = isObject(parsed) && Array.isArray(parsed.models) ? parsed.models.filter(isObject) : [];
    return models.map((m): ModelInfo => ({
      id: String(m.name ?? '').replace(/^models\//, ''),
      object: 'model',
      created: 0,
      owned_by: 'google',
      provider: NAME,
    }));
  },
};
