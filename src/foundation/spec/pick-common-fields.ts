import { isObject } from '../lib/json.js';

const CHOICE_KEYS = ['index', 'message', 'delta', 'finish_reason', 'logprobs', 'text'];
const MESSAGE_KEYS = ['role', 'content', 'tool_calls', 'function_call', 'refusal'];
const TOP_KEYS: Record<string, string[]> = {
  chat: ['id', 'object', 'created', 'model', 'system_fingerprint', 'choices', 'usage', 'service_tier'],
  completions: ['id', 'object', 'created', 'model', 'system_fingerprint', 'choices', 'usage'],
  embeddings: ['object', 'data', 'model', 'usage'],
};

/**
 * Keeps only fields of the common schema in an answer or chunk (`strict_compat_compliance`):
 * provider extras such as `reasoning_content` or `content_blocks` are dropped.
 */
export function pickCommonFields(endpoint: string, value: unknown): unknown {
  const keys = TOP_KEYS[endpoint];
  if (!keys || !isObject(value)) return value;
  const out = pick(value, keys);
  if (Array.isArray(out.choices)) {
    out.choices = out.choices.map((c) => {
      if (!isObject(c)) return c;
      const choice = pick(c, CHOICE_KEYS);
      if (isObject(choice.message)) choice.message = pick(choice.message, MESSAGE_KEYS);
      if (isObject(choice.delta)) choice.delta = pick(choice.delta, MESSAGE_KEYS);
      return choice;
    });
  }
  return out;
}

function pick(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
