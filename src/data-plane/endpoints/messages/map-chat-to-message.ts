import { isObject, tryParseJson } from '../../../foundation/lib/json.js';
import type { ChatCompletion, FinishReason, Usage } from '../../../foundation/spec/chat.js';
import type { MessagesResponse, MessagesStopReason, MessagesUsage } from '../../../foundation/spec/messages.js';

/**
 * Maps a common finish reason to a Messages API `stop_reason`: `length` → `max_tokens`,
 * `tool_calls`/`function_call` → `tool_use`, `content_filter` → `refusal`, anything else → `end_turn`.
 * @see https://docs.anthropic.com/en/api/messages#response-stop-reason
 */
export function mapFinishReasonToStopReason(reason: FinishReason | null | undefined): MessagesStopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * Maps common usage to Messages usage with every member the API's types have: the cache read and cache
 * write apart (0 when the upstream reported none), `input_tokens` what remains of the prompt (Anthropic
 * counts only tokens after the last cache breakpoint), reasoning tokens as `output_tokens_details.thinking_tokens`
 * when reported; what the upstream cannot say (cache TTL split, server tools, tier, geography, speed) is null.
 */
export function mapUsageToMessages(usage: Usage | null | undefined): MessagesUsage {
  const cacheRead = num(usage?.prompt_tokens_details?.cached_tokens);
  const cacheWrite = num(usage?.prompt_tokens_details?.cache_creation_tokens);
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: Math.max(0, num(usage?.prompt_tokens) - cacheRead - cacheWrite),
    output_tokens: num(usage?.completion_tokens),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    cache_creation: null,
    output_tokens_details: typeof reasoning === 'number' ? { thinking_tokens: reasoning } : null,
    server_tool_use: null,
    service_tier: null,
    inference_geo: null,
    speed: null,
  };
}

/**
 * The stop sequence an OpenAI-compatible upstream says ended the answer: vLLM puts it on the choice as
 * `stop_reason`, SGLang as `matched_stop` (a number there is an end-of-sequence token id, not a sequence).
 */
export function matchedStopSequence(choice: unknown): string | null {
  if (!isObject(choice) || choice.finish_reason !== 'stop') return null;
  if (typeof choice.stop_reason === 'string') return choice.stop_reason;
  if (typeof choice.matched_stop === 'string') return choice.matched_stop;
  return null;
}

/**
 * Common usage from Messages usage (a native answer's `usage`, or the cumulative usage of its stream
 * events): the prompt total adds the cache read and cache write to `input_tokens`.
 */
export function mapMessagesUsageToChat(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const cacheRead = num(u.cache_read_input_tokens);
  const cacheWrite = num(u.cache_creation_input_tokens);
  const prompt = num(u.input_tokens) + cacheRead + cacheWrite;
  const completion = num(u.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_creation_tokens: cacheWrite },
  };
}

/** A Messages API id for a chat completion id (`msg_…` ids are kept). */
export function messageIdOf(chatId: unknown): string {
  const id = typeof chatId === 'string' && chatId ? chatId : 'unknown';
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

/**
 * Maps a chat completion (its first choice) to a Messages API answer: thinking (signed, from
 * `content_blocks`, or `reasoning_content` unsigned) and text blocks in order, then one `tool_use`
 * block per tool call (arguments parsed; arguments that are not a JSON object become `{}`).
 * @see https://docs.anthropic.com/en/api/messages
 */
export function mapChatToMessage(chat: ChatCompletion, requestedModel: string): MessagesResponse {
  const choice = chat.choices?.[0];
  const msg = choice?.message;
  const content: MessagesResponse['content'] = [];
  if (Array.isArray(msg?.content_blocks)) {
    for (const b of msg.content_blocks as unknown[]) {
      if (!isObject(b)) continue;
      if (b.type === 'thinking' && typeof b.thinking === 'string')
        content.push({ type: 'thinking', thinking: b.thinking, signature: typeof b.signature === 'string' ? b.signature : '' });
      else if (b.type === 'redacted_thinking' && typeof b.data === 'string') content.push({ type: 'redacted_thinking', data: b.data });
      else if (b.type === 'text' && typeof b.text === 'string' && b.text) content.push({ type: 'text', text: b.text, citations: null });
    }
  } else {
    if (typeof msg?.reasoning_content === 'string' && msg.reasoning_content)
      content.push({ type: 'thinking', thinking: msg.reasoning_content, signature: '' });
    if (typeof msg?.content === 'string' && msg.content) content.push({ type: 'text', text: msg.content, citations: null });
  }
  for (const call of msg?.tool_calls ?? []) {
    const input = tryParseJson(call.function?.arguments ?? '');
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function?.name ?? '',
      input: isObject(input) ? input : {},
      caller: { type: 'direct' },
    });
  }
  const stopSequence = matchedStopSequence(choice);
  return {
    id: messageIdOf(chat.id),
    type: 'message',
    role: 'assistant',
    model: typeof chat.model === 'string' && chat.model ? chat.model : requestedModel,
    content,
    stop_reason: stopSequence === null ? mapFinishReasonToStopReason(choice?.finish_reason) : 'stop_sequence',
    stop_sequence: stopSequence,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: mapUsageToMessages(chat.usage),
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
