import { SseDecoder } from '../../lib/sse.js';
import { tryParseJson, isObject } from '../../lib/json.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { RESPONSE_TERMINAL_EVENTS, type ResponseStreamEvent } from '../../spec/responses.js';
import type { StreamMapper } from '../provider.js';

/**
 * Parses an OpenAI Responses stream (`event: <type>` + `data: <json>` frames, no `[DONE]`) into event
 * objects. An `error` event (or an `{"error": …}` frame) becomes a GatewayError; a stream that ends
 * before `response.completed`, `response.incomplete` or `response.failed` too.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function createOpenAIResponsesStreamMapper(provider: string): StreamMapper<ResponseStreamEvent> {
  const sse = new SseDecoder();
  let done = false;
  const handle = (events: ReturnType<SseDecoder['push']>): ResponseStreamEvent[] => {
    const out: ResponseStreamEvent[] = [];
    for (const ev of events) {
      if (ev.data === '[DONE]') {
        done = true;
        continue;
      }
      const value = tryParseJson(ev.data);
      if (!isObject(value)) continue;
      const err = value.type === 'error' ? value : isObject(value.error) && typeof value.type !== 'string' ? value.error : undefined;
      if (err) {
        throw new GatewayError('provider_error', typeof err.message === 'string' ? err.message : 'The provider reported an error mid-stream.', {
          provider,
          status: 502,
          type: typeof err.type === 'string' && err.type !== 'error' ? err.type : 'server_error',
          publicCode: typeof err.code === 'string' ? err.code : null,
          param: typeof err.param === 'string' ? err.param : null,
        });
      }
      if (typeof value.type !== 'string') continue;
      if (RESPONSE_TERMINAL_EVENTS.has(value.type)) done = true;
      out.push(value as ResponseStreamEvent);
    }
    return out;
  };
  return {
    push: (bytes) => handle(sse.push(bytes)),
    end: () => {
      const out = handle(sse.end());
      if (!done) throw new GatewayError('provider_error', 'The provider closed the stream before it was complete.', { provider, status: 502 });
      return out;
    },
  };
}
