import { isObject } from '../../foundation/lib/json.js';
import type { StreamMapper } from '../provider.js';
import { createJsonSseMapper } from './json-sse-stream.js';

/**
 * Parses an OpenAI-style SSE stream (`data: <json>` frames ended by `data: [DONE]`) into chunk objects.
 * An `{"error": …}` frame becomes a GatewayError; a stream that ends without `[DONE]` too.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function createOpenAIStreamMapper<Chunk>(provider: string): StreamMapper<Chunk> {
  return createJsonSseMapper<Chunk>(provider, { errorOf: (v) => (isObject(v.error) ? v.error : undefined) });
}
