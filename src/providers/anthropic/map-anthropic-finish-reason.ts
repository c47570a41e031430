import type { FinishReason } from '../../foundation/spec/chat.js';

/**
 * Maps an Anthropic `stop_reason` to a common finish reason: `end_turn`, `stop_sequence` and
 * `pause_turn` → `stop`; `max_tokens` and `model_context_window_exceeded` → `length`;
 * `tool_use` → `tool_calls`; `refusal` → `content_filter`. `null` stays `null`; an unknown reason → `stop`.
 * @see https://docs.anthropic.com/en/api/messages#response-stop-reason
 */
export function mapAnthropicFinishReason(stopReason: unknown): FinishReason | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}
