import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, EndpointAdapter, UpstreamCall } from '../provider.js';
import { buildAnthropicMessagesBody, mapAnthropicResponse } from '../anthropic/anthropic-chat.js';
import { createAnthropicStreamMapper } from '../anthropic/anthropic-stream.js';
import { buildGoogleChatBody, googleModelOf, mapGoogleResponse } from '../google/google-chat.js';
import { createGoogleStreamMapper } from '../google/google-stream.js';
import { vertexAuthHeaders, type VertexTokenCache } from './vertex-ai-auth.js';
import { vertexModelUrl } from './vertex-ai-url.js';

/** The `anthropic_version` Anthropic models on Vertex AI require in the body. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** True for models Vertex serves from the Anthropic publisher (`claude-…`). */
export function isAnthropicModel(model: string): boolean {
  return model.startsWith('claude');
}

/**
 * The body of an Anthropic model call on Vertex AI: the Messages API body without `model` (it is in
 * the URL) and with `anthropic_version: vertex-2023-10-16`. Reuses the anthropic provider's mapping.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 */
export function buildVertexAnthropicBody(req: ChatCompletionRequest, stream: boolean): Record<string, unknown> {
  const { model: _model, ...body } = buildAnthropicMessagesBody(req);
  body.anthropic_version = VERTEX_ANTHROPIC_VERSION;
  if (stream) body.stream = true;
  else delete body.stream;
  return body;
}

/**
 * Chat on Vertex AI. Gemini models: `publishers/google/models/{model}:generateContent` /
 * `:streamGenerateContent?alt=sse` with the Gemini body (the google provider's converters). Claude
 * models: `publishers/anthropic/models/{model}:rawPredict` / `:streamRawPredict` with the Anthropic body
 * (the anthropic provider's converters and stream mapper).
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 */
export function createVertexChat(
  provider: string,
  tokens: VertexTokenCache,
): EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> {
  return {
    async buildRequest(req, ctx): Promise<UpstreamCall> {
      const model = googleModelOf(req.model);
      const headers = {
        ...ctx.target.forwardHeaders,
        'content-type': 'application/json',
        ...(await vertexAuthHeaders(ctx, tokens, provider)),
      };
      if (isAnthropicModel(model)) {
        const url = vertexModelUrl(ctx.target, 'anthropic', model, ctx.stream ? 'streamRawPredict' : 'rawPredict');
        return { url, method: 'POST', headers, body: JSON.stringify(buildVertexAnthropicBody(req, ctx.stream)) };
      }
      const url = vertexModelUrl(ctx.target, 'google', model, ctx.stream ? 'streamGenerateContent?alt=sse' : 'generateContent');
      return { url, method: 'POST', headers, body: JSON.stringify(buildGoogleChatBody(req)) };
    },
    mapResponse(body, req, ctx: CallContext) {
      const model = googleModelOf(req.model);
      return isAnthropicModel(model) ? mapAnthropicResponse(body, model) : mapGoogleResponse(body, model, unixSeconds(ctx.clock));
    },
    createStreamMapper(req, ctx) {
      const model = googleModelOf(req.model);
      return isAnthropicModel(model)
        ? createAnthropicStreamMapper(provider, model)
        : createGoogleStreamMapper(provider, model, unixSeconds(ctx.clock));
    },
  };
}
