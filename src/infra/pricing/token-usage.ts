import { isObject } from '../../foundation/lib/json.js';

/**
 * Token counts of one answer, whatever the usage object's shape. `input` is every input token
 * (uncached, cache reads and cache writes together); `cacheRead` and `cacheWrite` are parts of it.
 * `output` is every output token; `reasoning` is part of it.
 */
export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  /** The provider's own price in US dollars when it reports one (`usage.cost`, as OpenRouter does). */
  reportedCost?: number;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

function member(o: unknown, key: string): unknown {
  return isObject(o) ? o[key] : undefined;
}

/**
 * Reads a usage object of any of the shapes the gateway answers with: the chat schema
 * (`prompt_tokens` including `prompt_tokens_details.cached_tokens` and `cache_creation_tokens`,
 * `completion_tokens` including `completion_tokens_details.reasoning_tokens`), the Responses API
 * (`input_tokens` with `input_tokens_details.cached_tokens`, `output_tokens` with
 * `output_tokens_details.reasoning_tokens`) and Anthropic's Messages API, whose `input_tokens`
 * excludes `cache_read_input_tokens` and `cache_creation_input_tokens`. Undefined for anything else.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function readTokenUsage(usage: unknown): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const cost = usage.cost;
  const reported = typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { reportedCost: cost } : {};
  if ('prompt_tokens' in usage || 'completion_tokens' in usage) {
    const cacheRead = num(member(usage.prompt_tokens_details, 'cached_tokens'));
    const cacheWrite = num(member(usage.prompt_tokens_details, 'cache_creation_tokens'));
    return {
      input: num(usage.prompt_tokens),
      output: num(usage.completion_tokens),
      cacheRead,
      cacheWrite,
      reasoning: num(member(usage.completion_tokens_details, 'reasoning_tokens')),
      ...reported,
    };
  }
  if (!('input_tokens' in usage) && !('output_tokens' in usage)) return undefined;
  if ('cache_read_input_tokens' in usage || 'cache_creation_input_tokens' in usage) {
    const cacheRead = num(usage.cache_read_input_tokens);
    const cacheWrite = num(usage.cache_creation_input_tokens);
    return {
      input: num(usage.input_tokens) + cacheRead + cacheWrite,
      output: num(usage.output_tokens),
      cacheRead,
      cacheWrite,
      reasoning: 0,
      ...reported,
    };
  }
  return {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(member(usage.input_tokens_details, 'cached_tokens')),
    cacheWrite: 0,
    reasoning: num(member(usage.output_tokens_details, 'reasoning_tokens')),
    ...reported,
  };
}
