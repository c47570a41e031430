/**
 * The Anthropic provider and the Messages API mappers other providers reuse (Vertex AI and other
 * hosts serving Anthropic models with the same body).
 * @see https://docs.anthropic.com/en/api/messages
 */
export { anthropicProvider } from './anthropic-provider.js';
export { buildAnthropicMessagesBody, mapAnthropicResponse } from './anthropic-chat.js';
export { createAnthropicStreamMapper } from './anthropic-stream.js';
export { mapAnthropicError, anthropicErrorStatus } from './anthropic-error.js';
