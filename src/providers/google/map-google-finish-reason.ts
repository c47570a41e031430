import type { FinishReason } from '../../foundation/spec/chat.js';

const CONTENT_FILTER = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

/**
 * Maps a Gemini `finishReason` to the common one. Gemini reports `STOP` after a function call, so a
 * candidate that called a tool finishes with `tool_calls` whatever the reason says.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapGoogleFinishReason(reason: unknown, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls && (reason === undefined || reason === 'STOP' || reason === 'FINISH_REASON_UNSPECIFIED')) return 'tool_calls';
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && CONTENT_FILTER.has(reason)) return 'content_filter';
  if (reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL') return 'stop';
  return hasToolCalls ? 'tool_calls' : 'stop';
}
