import { isObject } from '../lib/json.js';
import type { Usage } from '../spec/chat.js';
import type { UsageLimitType } from '../store/repos/usage-limit-policies.js';
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
 * The cost in US dollars of an answer: the `cost` its usage reports (OpenRouter and other
 * OpenAI-compatible providers add `usage.cost` in dollars), else 0. The gateway keeps no price
 * catalogue yet, so a cost policy counts only provider-reported costs (docs/usage-limits.md).
 */
export function costOf(usage: Usage | undefined): number {
  const c = isObject(usage) ? (usage as unknown as Record<string, unknown>).cost : undefined;
  return typeof c === 'number' && Number.isFinite(c) && c > 0 ? c : 0;
}

/** The settled amount of a finished request for a policy type, given its usage and its token count. */
export function settledAmount(type: UsageLimitType, usage: Usage | undefined, tokens: number): number {
  if (type === 'requests') return 1;
  if (type === 'tokens') return tokens;
  return costOf(usage);
}

export { totalTokensOf };
