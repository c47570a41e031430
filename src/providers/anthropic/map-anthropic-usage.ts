import type { Usage } from '../../foundation/spec/chat.js';
import type { AnthropicUsage } from './anthropic-types.js';

/**
 * Maps Anthropic usage to the common shape. Anthropic's `input_tokens` counts only the tokens after the
 * last cache breakpoint, so the prompt total is `input_tokens + cache_read_input_tokens +
 * cache_creation_input_tokens`; `prompt_tokens_details.cached_tokens` is the cache read and
 * `prompt_tokens_details.cache_creation_tokens` the cache write. Thinking tokens are part of
 * `output_tokens` (Anthropic does not report them apart).
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function mapAnthropicUsage(usage: AnthropicUsage): Usage {
  const input = num(usage.input_tokens);
  const cacheRead = num(usage.cache_read_input_tokens);
  const cacheCreation = num(usage.cache_creation_input_tokens);
  const completion = num(usage.output_tokens);
  const prompt = input + cacheRead + cacheCreation;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_creation_tokens: cacheCreation },
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
