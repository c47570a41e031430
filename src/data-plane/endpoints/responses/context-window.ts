import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { ChatMessage } from '../../../foundation/spec/chat.js';
import { loadTokenCounter, type TokenCounter } from '../../../foundation/lib/token-counter.js';
import { catalogueContextWindow } from '../../../infra/pricing/catalogue.js';

/** Context window used for models the table does not know. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Context windows (tokens) for models the price catalogue has none for, matched by the first rule whose pattern occurs in the model name
 * (lower-cased, so `anthropic.claude-…` and `us.anthropic.claude-…` Bedrock ids match too). Order matters:
 * more specific names first.
 */
const CONTEXT_WINDOWS: ReadonlyArray<[RegExp, number]> = [
  [/gpt-4\.1/, 1_047_576],
  [/gpt-5/, 400_000],
  [/gpt-4o|gpt-4-turbo|gpt-4-1106|gpt-4-0125/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4/, 8_192],
  [/gpt-3\.5-turbo-instruct/, 4_096],
  [/gpt-3\.5/, 16_385],
  [/(^|[^a-z])o[134](-|$)/, 200_000],
  [/claude/, 200_000],
  [/gemini-1\.5-pro/, 2_097_152],
  [/gemini/, 1_048_576],
  [/command-r|command-a/, 128_000],
  [/mistral-large|mistral-small|codestral/, 128_000],
  [/llama-?3/, 128_000],
  [/llama-?2/, 4_096],
];

/**
 * The context window of a model (tokens): the model catalogue's (`infra/pricing/catalogue.ts`, memoised),
 * else the table above, else {@link DEFAULT_CONTEXT_WINDOW}. A `@slug/` provider prefix is ignored.
 */
export function contextWindowOf(model: string | undefined): number {
  const name = (model ?? '').replace(/^@[^/\s]+\//, '');
  const known = name ? catalogueContextWindow(name) : undefined;
  if (known) return known;
  const m = name.toLowerCase();
  for (const [pattern, window] of CONTEXT_WINDOWS) if (pattern.test(m)) return window;
  return DEFAULT_CONTEXT_WINDOW;
}

/** Tokens of one chat message as the chat format frames it: 4 per message plus its text, tool calls and arguments. */
function messageTokens(count: TokenCounter, m: ChatMessage): number {
  let text = '';
  if (typeof m.content === 'string') text += m.content;
  else if (Array.isArray(m.content)) for (const p of m.content) if (isObject(p) && typeof p.text === 'string') text += p.text;
  for (const t of m.tool_calls ?? []) text += t.function.name + t.function.arguments;
  const images = Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url').length : 0;
  return 4 + count(text) + images * 85;
}

/**
 * Applies `truncation` to chat messages. The leading system message and the last message always stay.
 * `disabled`: input over the window → 400. `auto`: the oldest turns after the system message are
 * dropped until the input fits (a tool result is dropped with the call before it; the kept turns
 * start with a user message), else 400.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-truncation
 */
export async function fitToContextWindow(
  messages: ChatMessage[],
  model: string | undefined,
  truncation: 'auto' | 'disabled',
  reserveTokens = 0,
): Promise<ChatMessage[]> {
  const window = contextWindowOf(model);
  const count = await loadTokenCounter();
  const sizes = messages.map((m) => messageTokens(count, m));
  let total = 3 + reserveTokens + sizes.reduce((a, b) => a + b, 0);
  if (total <= window) return messages;
  const tooLong = () =>
    new GatewayError(
      'invalid_request',
      `The input (about ${total} tokens) exceeds the context window of model '${model ?? 'unknown'}' (${window} tokens) and truncation is '${truncation}'.`,
      { param: 'input' },
    );
  if (truncation === 'disabled') throw tooLong();
  const head = messages[0]?.role === 'system' ? 1 : 0;
  let drop = head;
  while (total > window && drop < messages.length - 1) {
    total -= sizes[drop]!;
    drop++;
    while (drop < messages.length - 1 && messages[drop]!.role === 'tool') total -= sizes[drop++]!;
  }
  // The kept conversation starts with a user turn where one is left (providers such as Anthropic require it).
  while (drop < messages.length - 1 && messages[drop]!.role !== 'user') total -= sizes[drop++]!;
  if (total > window) throw tooLong();
  return [...messages.slice(0, head), ...messages.slice(drop)];
}
