import { isObject } from '../../foundation/lib/json.js';
import { createJsonSseMapper } from './json-sse-stream.js';
import { RESPONSE_TERMINAL_EVENTS, type ResponseStreamEvent } from '../../foundation/spec/responses.js';
import type { StreamMapper } from '../provider.js';

/**
 * Parses an OpenAI Responses stream (`event: <type>` + `data: <json>` frames, no `[DONE]`) into event
 * objects. An `error` event (or an `{"error": …}` frame) becomes a GatewayError; a stream that ends
 * before `response.completed`, `response.incomplete` or `response.failed` too.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function createOpenAIResponsesStreamMapper(provider: string): StreamMapper<ResponseStreamEvent> {
  return createJsonSseMapper<ResponseStreamEvent>(provider, {
    errorOf: (v) => (v.type === 'error' ? v : isObject(v.error) && typeof v.type !== 'string' ? v.error : undefined),
    keep: (v) => typeof v.type === 'string',
    isTerminal: (v) => RESPONSE_TERMINAL_EVENTS.has(v.type as string),
  });
}
