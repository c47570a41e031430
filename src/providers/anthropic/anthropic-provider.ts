import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { ModelInfo } from '../../foundation/spec/models.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { EndpointAdapter, ProviderAdapter } from '../provider.js';
import { ANTHROPIC_BASE_URL, anthropicHeaders, anthropicUrl } from './anthropic-auth.js';
import { buildAnthropicMessagesBody, mapAnthropicResponse } from './anthropic-chat.js';
import { createAnthropicStreamMapper } from './anthropic-stream.js';
import { mapAnthropicError } from './anthropic-error.js';
import { anthropicCountTokensEndpoint, anthropicMessagesEndpoint } from './anthropic-messages.js';

const NAME = 'anthropic';

const chat: EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
  buildRequest(req, ctx) {
    if (!req.model) throw new GatewayError('invalid_request', "Provider 'anthropic' needs a 'model'.", { param: 'model' });
    const body = buildAnthropicMessagesBody(req);
    if (ctx.stream) body.stream = true;
    return {
      url: anthropicUrl(ctx.target, '/messages'),
      method: 'POST',
      headers: anthropicHeaders(ctx.target),
      body: JSON.stringify(body),
    };
  },
  mapResponse: (body, req) => mapAnthropicResponse(body, req.model ?? ''),
  createStreamMapper: (req) => createAnthropicStreamMapper(NAME, req.model ?? ''),
};

/**
 * Anthropic (Messages API): chat, streamed or not, with tools, images and extended thinking; the
 * Messages API itself and its token counting passed through natively; model listing. No embeddings or text completions. Base URL `https://api.anthropic.com`, or `custom_host`
 * with or without `/v1`.
 * @see https://docs.anthropic.com/en/api/messages
 */
export const anthropicProvider: ProviderAdapter = {
  name: NAME,
  endpoints: { chat, messages: anthropicMessagesEndpoint(NAME), messages_count_tokens: anthropicCountTokensEndpoint },
  fixedOrigins: [ANTHROPIC_BASE_URL],
  mapError: (status, body, headers) => mapAnthropicError(NAME, status, body, headers),
  async listModels(ctx) {
    const parsed = await ctx.http.getJson(
      { url: anthropicUrl(ctx.target, '/models?limit=1000'), headers: anthropicHeaders(ctx.target), signal: ctx.signal },
      NAME,
      (status, body, headers) => mapAnthropicError(NAME, status, body, headers),
    );
    const data = isObject(parsed) && Array.isArray(parsed.data) ? parsed.data : [];
    return data.filter(isObject).map((m): ModelInfo => ({
      id: String(m.id),
      object: 'model',
      created:
        typeof m.created_at === 'string' && !Number.isNaN(Date.parse(m.created_at)) ? Math.floor(Date.parse(m.created_at) / 1000) : 0,
      owned_by: NAME,
      provider: NAME,
    }));
  },
};
