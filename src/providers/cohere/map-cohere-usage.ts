import type { Usage } from '../../foundation/spec/chat.js';
import type { CohereUsage } from './cohere-api-types.js';

/**
 * Maps Cohere usage to the common schema: `tokens.input_tokens` / `tokens.output_tokens` (the model's token
 * counts), falling back to `billed_units`; `cached_tokens` becomes `prompt_tokens_details.cached_tokens`.
 * @see https://docs.cohere.com/reference/chat#response.body.usage
 */
export function mapCohereUsage(usage: CohereUsage | undefined): Usage {
  const prompt = usage?.tokens?.input_tokens ?? usage?.billed_units?.input_tokens ?? 0;
  const completion = usage?.tokens?.output_tokens ?? usage?.billed_units?.output_tokens ?? 0;
  const out: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (typeof usage?.cached_tokens === 'number') out.prompt_tokens_details = { cached_tokens: usage.cached_tokens };
  return out;
}
