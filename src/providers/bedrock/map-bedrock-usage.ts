import type { Usage } from '../../foundation/spec/chat.js';
import type { BedrockUsage } from './bedrock-types.js';

/**
 * Maps Converse usage to the common usage. Bedrock's `inputTokens` leaves out cached tokens, so
 * `prompt_tokens` adds `cacheReadInputTokens` (also reported as `cached_tokens`) and
 * `cacheWriteInputTokens` (reported as `cache_creation_tokens`), as OpenAI counts them.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
export function mapBedrockUsage(u: BedrockUsage | undefined): Usage {
  const input = num(u?.inputTokens);
  const output = num(u?.outputTokens);
  const cacheRead = num(u?.cacheReadInputTokens);
  const cacheWrite = num(u?.cacheWriteInputTokens);
  const prompt = input + cacheRead + cacheWrite;
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: Math.max(num(u?.totalTokens), prompt + output),
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
  if (cacheWrite) usage.prompt_tokens_details!.cache_creation_tokens = cacheWrite;
  return usage;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
