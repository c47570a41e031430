import { OPENAI_COMPATIBLE_SETTINGS } from './openai-compatible-settings.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { CompletionRequest, TextCompletion } from '../../foundation/spec/completions.js';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import type { ModelInfo } from '../../foundation/spec/models.js';
import type { ImageGenerationRequest, ImagesResponse } from '../../foundation/spec/images.js';
import type { ModerationRequest, ModerationResponse } from '../../foundation/spec/moderations.js';
import type { RerankRequest, RerankResponse } from '../../foundation/spec/rerank.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import { isObject } from '../../foundation/lib/json.js';
import type { CallContext, EndpointAdapter, ProviderAdapter, ProviderResourceApi, UpstreamCall } from '../provider.js';
import { joinUrl } from './url.js';
import { mapOpenAIError } from './map-openai-error.js';
import { createOpenAIStreamMapper } from './openai-stream.js';
import { buildOpenAICompatibleRerankBody, mapOpenAICompatibleRerankResponse } from './openai-compatible-rerank.js';
import { createOpenAIResponsesEndpoint } from './openai-responses.js';
import { baseUrlOf, openAIHeaders, type OpenAICompatibleSpec } from './openai-compatible-spec.js';

/** A POST of `body` (sent as `text`, its JSON by default) to `path` of the host. */
function jsonCall(
  spec: OpenAICompatibleSpec,
  path: string,
  body: Record<string, unknown>,
  ctx: CallContext,
  text = jsonText(body, ctx),
): UpstreamCall {
  const p = spec.resolvePath ? spec.resolvePath(path, body, ctx.target) : path;
  return { url: joinUrl(baseUrlOf(spec, ctx.target), p), method: 'POST', headers: openAIHeaders(spec, ctx.target), body: text };
}

type StreamOptionsOf = { stream?: boolean | null; stream_options?: { include_usage?: boolean } | null };

/**
 * A streamed request's body with `stream_options.include_usage: true`, so every stream reports its
 * usage (usage limits and token rate limits count streamed answers); other bodies unchanged.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options
 */
export function withStreamUsage<R extends StreamOptionsOf>(req: R): R {
  if (req.stream !== true || req.stream_options?.include_usage === true) return req;
  return { ...req, stream_options: { ...(req.stream_options ?? {}), include_usage: true } };
}

/** What replaces the closing brace of a body without `stream_options`: a comma, the member `withStreamUsage` adds, the brace. */
const INCLUDE_USAGE_MEMBER = ',"stream_options":{"include_usage":true}}';

/**
 * `JSON.stringify(withStreamUsage(req))`, byte for byte, or the same change made to the client's own text
 * when `req` is the request body as sent (`ctx.sourceText`). A streamed body without `stream_options` (the
 * usual one) is not copied: its text gets the member appended, as the copy would write it (a member added to
 * a copy comes last). The copy and its serialisation cost ~3.9 µs per stream natively, the text and the
 * append ~1.7.
 */
export function streamUsageBodyText<R extends StreamOptionsOf>(req: R, ctx?: CallContext): string {
  // Not streamed, or the client asked for usage itself: the body as it is (what `withStreamUsage` answers then).
  if (req.stream !== true || req.stream_options?.include_usage === true) return jsonText(req, ctx);
  if (Object.hasOwn(req, 'stream_options')) return JSON.stringify(withStreamUsage(req));
  const text = jsonText(req, ctx);
  // A client's text may end in white space; it holds `stream`, so its object is not empty.
  const end = text.lastIndexOf('}');
  return end > 1 ? text.slice(0, end) + INCLUDE_USAGE_MEMBER : JSON.stringify(withStreamUsage(req));
}

/** `body`'s JSON text: the client's own when `body` is the request body as sent (CallContext.sourceText), else serialised. */
function jsonText(body: object, ctx: CallContext | undefined): string {
  return ctx?.sourceText?.(body) ?? JSON.stringify(body);
}

/**
 * Builds the adapter of an OpenAI-compatible host from one row of settings. Every endpoint but
 * rerank is `nativeSchema`, so answers pass through byte for byte when nothing rewrites them; rerank
 * (`rerank: true` rows) speaks the vLLM / Jina format and is mapped to the common result object.
 * Streamed chat and completions always ask for usage (`withStreamUsage`).
 * @see https://platform.openai.com/docs/api-reference
 */
export function createOpenAICompatibleProvider(spec: OpenAICompatibleSpec): ProviderAdapter {
  const chat: EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
    nativeSchema: true,
    addsStreamUsage: true,
    buildRequest: (req, ctx) => jsonCall(spec, '/chat/completions', req, ctx, streamUsageBodyText(req, ctx)),
    mapResponse: (body) => body as ChatCompletion,
    createStreamMapper: () => createOpenAIStreamMapper<ChatCompletionChunk>(spec.name),
  };
  const completions: EndpointAdapter<CompletionRequest, TextCompletion, TextCompletion> = {
    nativeSchema: true,
    addsStreamUsage: true,
    buildRequest: (req, ctx) => jsonCall(spec, '/completions', req, ctx, streamUsageBodyText(req, ctx)),
    mapResponse: (body) => body as TextCompletion,
    createStreamMapper: () => createOpenAIStreamMapper<TextCompletion>(spec.name),
  };
  const embeddings: EndpointAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
    nativeSchema: true,
    buildRequest: (req, ctx) => jsonCall(spec, '/embeddings', req, ctx),
    mapResponse: (body) => body as EmbeddingsResponse,
  };
  const images: EndpointAdapter<ImageGenerationRequest, ImagesResponse> = {
    nativeSchema: true,
    buildRequest: (req, ctx) => jsonCall(spec, '/images/generations', req, ctx),
    mapResponse: (body) => body as ImagesResponse,
  };
  const moderations: EndpointAdapter<ModerationRequest, ModerationResponse> = {
    nativeSchema: true,
    buildRequest: (req, ctx) => jsonCall(spec, '/moderations', req, ctx),
    mapResponse: (body) => body as ModerationResponse,
  };
  const rerank: EndpointAdapter<RerankRequest, RerankResponse> = {
    buildRequest: (req, ctx) => jsonCall(spec, '/rerank', buildOpenAICompatibleRerankBody(req, spec.name), ctx),
    mapResponse: (body, req) => mapOpenAICompatibleRerankResponse(body, req, spec.name, prefixedId('rerank-')),
  };
  const without = new Set(spec.without ?? []);
  return {
    name: spec.name,
    endpoints: {
      ...(without.has('chat') ? {} : { chat }),
      ...(without.has('completions') ? {} : { completions }),
      ...(without.has('embeddings') ? {} : { embeddings }),
      ...(without.has('images') ? {} : { images }),
      ...(without.has('moderations') ? {} : { moderations }),
      ...(spec.rerank ? { rerank } : {}),
      ...(spec.responses ? { responses: createOpenAIResponsesEndpoint(spec) } : {}),
    },
    mapError: (status, body, headers) => mapOpenAIError(spec.name, status, body, headers),
    ...(spec.resources ? { resources: openAIResourceApi(spec) } : {}),
    fixedOrigins: spec.resolveBaseUrl ? [] : [new URL(spec.baseUrl).origin],
    settings: { ...OPENAI_COMPATIBLE_SETTINGS, ...spec.settings },
    async listModels(ctx) {
      const path = spec.resolvePath ? spec.resolvePath('/models', undefined, ctx.target) : '/models';
      const parsed = await ctx.http.getJson(
        { url: joinUrl(baseUrlOf(spec, ctx.target), path), headers: openAIHeaders(spec, ctx.target), signal: ctx.signal },
        spec.name,
        (status, body, headers) => mapOpenAIError(spec.name, status, body, headers),
      );
      const data = isObject(parsed) && Array.isArray(parsed.data) ? parsed.data : [];
      return data.filter(isObject).map((m): ModelInfo => ({
        id: String(m.id),
        object: 'model',
        created: typeof m.created === 'number' ? m.created : 0,
        owned_by: typeof m.owned_by === 'string' ? m.owned_by : spec.name,
        provider: spec.name,
      }));
    },
  };
}

/**
 * The files, batches and fine-tuning APIs of an OpenAI-compatible host: the path below the base URL
 * (rewritten by `resolvePath` where the host needs it) with the host's auth headers.
 * @see https://platform.openai.com/docs/api-reference/files
 */
export function openAIResourceApi(spec: OpenAICompatibleSpec): ProviderResourceApi {
  return {
    kinds: ['files', 'batches', 'fine_tuning'],
    async buildCall(path, ctx) {
      const p = spec.resolvePath ? spec.resolvePath(path, undefined, ctx.target) : path;
      const headers = openAIHeaders(spec, ctx.target);
      delete headers['content-type'];
      return { url: joinUrl(baseUrlOf(spec, ctx.target), p), headers };
    },
  };
}
