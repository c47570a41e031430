import type { ChatCompletion, ChatCompletionMessage, ChatCompletionRequest, ToolCall } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.js';
import { convertToAnthropicTools } from './convert-to-anthropic-tools.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { mapAnthropicUsage } from './map-anthropic-usage.js';
import type { AnthropicUsage } from './anthropic-types.js';

/** `max_tokens` sent when the request sets neither `max_completion_tokens` nor `max_tokens` (Anthropic requires it). */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * Builds a Messages API body from a common-schema chat request: `model`, `system` + `messages`,
 * `max_tokens` (`max_completion_tokens`, else `max_tokens`, else 4096 — plus the thinking budget when
 * thinking is enabled, so the budget stays below it), `temperature`, `top_p`, `top_k`, `stop` →
 * `stop_sequences`, `user` → `metadata.user_id`, `thinking` as is, tools and tool choice, `stream`.
 * Fields Anthropic does not know (n, seed, penalties, logprobs, response_format) are not sent.
 * Shared with providers that serve Anthropic models elsewhere (they drop `model`, add their own version).
 * @see https://docs.anthropic.com/en/api/messages
 */
export function buildAnthropicMessagesBody(req: ChatCompletionRequest): Record<string, unknown> {
  const { system, messages } = convertToAnthropicMessages(req.messages ?? []);
  const body: Record<string, unknown> = {};
  if (req.model) body.model = req.model;
  if (system !== undefined) body.system = system;
  body.messages = messages;
  body.max_tokens = req.max_completion_tokens ?? req.max_tokens ?? defaultMaxTokens(req);
  if (typeof req.temperature === 'number') body.temperature = req.temperature;
  if (typeof req.top_p === 'number') body.top_p = req.top_p;
  if (typeof req.top_k === 'number') body.top_k = req.top_k;
  const stop = typeof req.stop === 'string' ? [req.stop] : Array.isArray(req.stop) ? req.stop : [];
  if (stop.length) body.stop_sequences = stop;
  if (typeof req.user === 'string' && req.user) body.metadata = { user_id: req.user };
  if (isObject(req.thinking)) body.thinking = req.thinking;
  Object.assign(body, convertToAnthropicTools(req));
  if (req.stream) body.stream = true;
  return body;
}

function defaultMaxTokens(req: ChatCompletionRequest): number {
  const budget = req.thinking?.type === 'enabled' ? req.thinking.budget_tokens : undefined;
  return typeof budget === 'number' ? budget + DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS;
}

/**
 * Maps a Messages API answer to a chat completion: text blocks → `content`, `tool_use` blocks →
 * `tool_calls` (input serialised as the arguments string), `thinking` blocks → `reasoning_content` and,
 * with their signatures, `content_blocks` (thinking first, then text) so a client can send them back.
 * The message id is kept as the completion id. `model` is used when the answer names none.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function mapAnthropicResponse(body: unknown, model: string): ChatCompletion {
  if (!isObject(body) || !Array.isArray(body.content)) {
    throw new GatewayError('provider_error', 'The provider answered with an unexpected body (no content array).', { status: 502 });
  }
  let text = '';
  const thinking: string[] = [];
  const blocks: NonNullable<ChatCompletionMessage['content_blocks']> = [];
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      blocks.push({ type: 'text', text: block.text });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      thinking.push(block.thinking);
      blocks.push({
        type: 'thinking',
        thinking: block.thinking,
        ...(typeof block.signature === 'string' ? { signature: block.signature } : {}),
      });
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: ChatCompletionMessage = { role: 'assistant', content: text || (toolCalls.length ? null : ''), refusal: null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  if (thinking.length) {
    message.reasoning_content = thinking.join('\n');
    message.content_blocks = blocks;
  }
  return {
    id: typeof body.id === 'string' ? body.id : prefixedId('chatcmpl-'),
    object: 'chat.completion',
    created: unixSeconds(),
    model: typeof body.model === 'string' ? body.model : model,
    choices: [{ index: 0, message, finish_reason: mapAnthropicFinishReason(body.stop_reason), logprobs: null }],
    usage: mapAnthropicUsage(isObject(body.usage) ? (body.usage as AnthropicUsage) : {}),
  };
}
