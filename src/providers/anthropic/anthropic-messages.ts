import type {
  MessagesCountTokensResponse,
  MessagesRequest,
  MessagesResponse,
  MessagesStreamEvent,
} from '../../foundation/spec/messages.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { SseDecoder } from '../../foundation/lib/sse.js';
import type { CallContext, EndpointAdapter, StreamMapper, UpstreamCall } from '../provider.js';
import { anthropicHeaders, anthropicUrl } from './anthropic-auth.js';
import { mapAnthropicStreamError } from './anthropic-error.js';

/** Client headers that choose the API revision and beta features; forwarded when the request carries them. */
const CLIENT_VERSION_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

function call(path: string, req: MessagesRequest, ctx: CallContext): UpstreamCall {
  const headers = anthropicHeaders(ctx.target);
  for (const name of CLIENT_VERSION_HEADERS) {
    const v = ctx.target.forwardHeaders[name];
    if (v) headers[name] = v;
  }
  return { url: anthropicUrl(ctx.target, path), method: 'POST', headers, body: JSON.stringify(req) };
}

/**
 * Parses a Messages API stream into its events (used only when the answer cannot pass through as bytes);
 * an `error` event throws, a stream without `message_stop` throws a 502. Also read by providers that
 * host Anthropic models with the same stream (Vertex AI).
 */
export function createMessagesEventMapper(provider: string): StreamMapper<MessagesStreamEvent> {
  const sse = new SseDecoder();
  let stopped = false;
  const map = (events: ReturnType<SseDecoder['push']>): MessagesStreamEvent[] => {
    const out: MessagesStreamEvent[] = [];
    for (const ev of events) {
      const data = tryParseJson(ev.data);
      if (!isObject(data) || typeof data.type !== 'string') continue;
      if (data.type === 'error') throw mapAnthropicStreamError(provider, data);
      if (data.type === 'message_stop') stopped = true;
      out.push(data as MessagesStreamEvent);
    }
    return out;
  };
  return {
    push: (bytes) => map(sse.push(bytes)),
    end() {
      const last = map(sse.end());
      if (!stopped) throw new GatewayError('provider_error', 'The provider stream ended before message_stop.', { status: 502, provider });
      return last;
    },
  };
}

/**
 * The Messages API served natively: the client's body goes to `/v1/messages` as it is (its
 * `anthropic-version` and `anthropic-beta` headers too) and the answer's bytes come back unchanged.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function anthropicMessagesEndpoint(provider: string): EndpointAdapter<MessagesRequest, MessagesResponse, MessagesStreamEvent> {
  return {
    nativeSchema: true,
    buildRequest: (req, ctx) => call('/messages', req, ctx),
    mapResponse: (body) => body as MessagesResponse,
    createStreamMapper: () => createMessagesEventMapper(provider),
  };
}

/**
 * Token counting served natively (`/v1/messages/count_tokens`); `stream` and `max_tokens` are not part of it.
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const anthropicCountTokensEndpoint: EndpointAdapter<MessagesRequest, MessagesCountTokensResponse> = {
  nativeSchema: true,
  buildRequest(req, ctx) {
    const { stream: _stream, max_tokens: _max, ...rest } = req;
    return call('/messages/count_tokens', rest as MessagesRequest, ctx);
  },
  mapResponse: (body) => body as MessagesCountTokensResponse,
};
