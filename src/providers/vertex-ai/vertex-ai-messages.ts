import type { MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../../foundation/spec/messages.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { EndpointAdapter } from '../provider.js';
import { createMessagesEventMapper } from '../anthropic/anthropic-messages.js';
import { vertexAuthHeaders, type VertexTokenCache } from './vertex-ai-auth.js';
import { VERTEX_ANTHROPIC_VERSION, isAnthropicModel } from './vertex-ai-chat.js';
import { vertexModelUrl } from './vertex-ai-url.js';

/** A Claude model id as Vertex names it: `claude-sonnet-4@20250514`, also accepted with a `publishers/anthropic/models/` prefix. */
function claudeModelOf(model: string | undefined): string {
  if (!model) throw new GatewayError('invalid_request', "The request needs a 'model'.", { param: 'model' });
  return model.replace(/^publishers\/anthropic\/models\//, '');
}

/**
 * The rawPredict body of a Claude model: the Messages body without `model` (it is in the URL), with
 * `anthropic_version: vertex-2023-10-16` (whatever the body said), and `stream: true` on streamRawPredict only.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 */
export function buildVertexMessagesBody(req: MessagesRequest, stream: boolean): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = req;
  return { ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION, ...(stream ? { stream: true } : {}) };
}

/**
 * The Messages API on Vertex AI for Claude models, natively: `publishers/anthropic/models/{model}:rawPredict`
 * (the answer is an Anthropic message) and `:streamRawPredict` (an Anthropic SSE stream), both passed
 * through byte for byte. The client's `anthropic-beta` header is forwarded; `anthropic-version` is replaced
 * by the body's `anthropic_version`.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 */
export function createVertexMessages(
  provider: string,
  tokens: VertexTokenCache,
): EndpointAdapter<MessagesRequest, MessagesResponse, MessagesStreamEvent> {
  return {
    nativeSchema: true,
    servesModel: (model) => typeof model === 'string' && isAnthropicModel(claudeModelOf(model)),
    async buildRequest(req, ctx) {
      const model = claudeModelOf(req.model);
      const { 'anthropic-version': _version, ...forwarded } = ctx.target.forwardHeaders;
      const url = vertexModelUrl(ctx.target, 'anthropic', model, ctx.stream ? 'streamRawPredict' : 'rawPredict');
      const headers = { ...forwarded, 'content-type': 'application/json', ...(await vertexAuthHeaders(ctx, tokens, provider)) };
      return { url, method: 'POST', headers, body: JSON.stringify(buildVertexMessagesBody(req, ctx.stream)) };
    },
    mapResponse: (body) => body as MessagesResponse,
    createStreamMapper: () => createMessagesEventMapper(provider),
  };
}
