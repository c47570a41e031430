import type { UsageLimitType } from '../../infra/store/repos/usage-limit-policies.js';
import { estimatePromptTokens, totalTokensOf } from './estimate-tokens.js';

/** Characters / 4: the admission estimate must not load a tokenizer or block the request. */
const quickCount = (text: string) => Math.ceil(text.length / 4);

/**
 * What an admission reserves: 1 request; the prompt's tokens (characters / 4) for a tokens policy;
 * 0 dollars for a cost policy (the hook reserves the policy's running average cost instead, once known).
 */
export function reserveAmount(type: UsageLimitType, body: Record<string, unknown>): number {
  if (type === 'requests') return 1;
  if (type === 'tokens') return estimatePromptTokens(quickCount, body);
  return 0;
}

/**
 * The settled amount of a finished request for a policy type, given its cost in US dollars (the
 * request's price, `data-plane/pipeline/request-price.ts`, as on its request-log row) and its token count.
 */
export function settledAmount(type: UsageLimitType, cost: number, tokens: number): number {
  if (type === 'requests') return 1;
  if (type === 'tokens') return tokens;
  return cost;
}

export { totalTokensOf };
