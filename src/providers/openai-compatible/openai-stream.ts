import { SseDecoder } from '../../lib/sse.js';
import { tryParseJson, isObject } from '../../lib/json.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { StreamMapper } from '../provider.js';

/**
 * Parses an OpenAI-style SSE stream (`data: <json>` frames ended by `data: [DONE]`) into chunk objects.
 * An `{"error": …}` frame becomes a GatewayError; a stream that ends without `[DONE]` too.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function createOpenAIStreamMapper<Chunk>(provider: string): StreamMapper<Chunk> {
  const sse = new SseDecoder();
  let done = false;
  const handle = (events: ReturnType<SseDecoder['push']>): Chunk[] => {
    const out: Chunk[] = [];
    for (const ev of events) {
      if (ev.data === '[DONE]') {
        done = true;
        continue;
      }
      const value = tryParseJson(ev.data);
      if (!isObject(value)) continue;
      if (isObject(value.error)) {
        const e = value.error;
        throw new GatewayError('provider_error', typeof e.message === 'string' ? e.message : 'The provider reported an error mid-stream.', {
          provider,
          status: 502,
          type: typeof e.type === 'string' ? e.type : 'server_error',
          publicCode: typeof e.code === 'string' ? e.code : null,
        });
      }
      out.push(value as Chunk);
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
