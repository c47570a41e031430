import type { FinishReason } from '../../foundation/spec/chat.js';

/**
 * Maps a Cohere v2 `finish_reason` to the common schema: `COMPLETE` and `STOP_SEQUENCE` → `stop`,
 * `MAX_TOKENS` → `length`, `TOOL_CALL` → `tool_calls`. `ERROR` and `TIMEOUT` are failures (see
 * {@link cohereFailureStatus}); anything unknown becomes `stop`.
 * @see https://docs.cohere.com/reference/chat#response.body.finish_reason
 */
export function mapCohereFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/** The status a failed generation maps to (`ERROR` → 502, `TIMEOUT` → 504), or undefined when it did not fail. */
export function cohereFailureStatus(reason: string | undefined): number | undefined {
  if (reason === 'ERROR') return 502;
  if (reason === 'TIMEOUT') return 504;
  return undefined;
}
