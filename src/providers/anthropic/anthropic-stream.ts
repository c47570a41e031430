import type { ChatCompletionChunk, ChatCompletionChunkChoice } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { SseDecoder, type SseEvent } from '../../foundation/lib/sse.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import type { StreamMapper } from '../provider.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { mapAnthropicUsage } from './map-anthropic-usage.js';
import { mapAnthropicStreamError } from './anthropic-error.js';
import type { AnthropicUsage } from './anthropic-types.js';

type Delta = ChatCompletionChunkChoice['delta'];

/**
 * Maps Anthropic's SSE stream to common chunks:
 * - `message_start` → the first chunk (`delta.role: 'assistant'`), id and model taken from the message;
 * - `content_block_start` of a `tool_use` → a tool-call delta `{index, id, type, function:{name, arguments:''}}`
 *   (tool calls numbered from 0 in order, whatever their block index); `input_json_delta` → argument pieces;
 * - `text_delta` → `content`; `thinking_delta` → `reasoning_content`;
 * - `message_delta` → the chunk with `finish_reason`; `message_stop` → a usage chunk (`choices: []`);
 * - `ping`, `content_block_stop`, `signature_delta` are dropped; an `error` event throws a GatewayError
 *   whose status follows the error type (e.g. `overloaded_error` → 529).
 * `end()` before `message_stop` throws `provider_error` 502 (stream ended early).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export function createAnthropicStreamMapper(provider: string, model: string): StreamMapper<ChatCompletionChunk> {
  const sse = new SseDecoder();
  let id = prefixedId('chatcmpl-');
  let modelName = model;
  const created = unixSeconds();
  let usage: AnthropicUsage = {};
  let done = false;
  const toolIndexByBlock = new Map<number, number>();

  const chunk = (choices: ChatCompletionChunkChoice[], extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: modelName,
    choices,
    ...extra,
  });
  const delta = (d: Delta, finish: ChatCompletionChunkChoice['finish_reason'] = null): ChatCompletionChunk =>
    chunk([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);
  const addUsage = (u: unknown): void => {
    if (!isObject(u)) return;
    const next: AnthropicUsage = { ...usage };
    for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      if (typeof u[key] === 'number') next[key] = u[key];
    }
    usage = next;
  };

  const handle = (ev: SseEvent): ChatCompletionChunk[] => {
    const data = tryParseJson(ev.data);
    const type = ev.event ?? (isObject(data) ? data.type : undefined);
    if (type === 'error') throw mapAnthropicStreamError(provider, data);
    if (!isObject(data)) return [];
    switch (type) {
      case 'message_start': {
        const msg = isObject(data.message) ? data.message : {};
        if (typeof msg.id === 'string') id = msg.id;
        if (typeof msg.model === 'string' && msg.model) modelName = msg.model;
        addUsage(msg.usage);
        return [delta({ role: 'assistant', content: '' })];
      }
      case 'content_block_start':
        return blockStart(data);
      case 'content_block_delta':
        return blockDelta(data);
      case 'message_delta': {
        addUsage(data.usage);
        const reason = isObject(data.delta) ? mapAnthropicFinishReason(data.delta.stop_reason) : null;
        return reason ? [delta({}, reason)] : [];
      }
      case 'message_stop':
        done = true;
        return [chunk([], { usage: mapAnthropicUsage(usage) })];
      default:
        return [];
    }
  };

  const blockStart = (data: Record<string, unknown>): ChatCompletionChunk[] => {
    const block = isObject(data.content_block) ? data.content_block : {};
    if (block.type === 'tool_use') {
      const index = toolIndexByBlock.size;
      toolIndexByBlock.set(Number(data.index), index);
      return [
        delta({ tool_calls: [{ index, id: String(block.id), type: 'function', function: { name: String(block.name), arguments: '' } }] }),
      ];
    }
    if (block.type === 'text' && typeof block.text === 'string' && block.text) return [delta({ content: block.text })];
    if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking)
      return [delta({ reasoning_content: block.thinking })];
    return [];
  };

  const blockDelta = (data: Record<string, unknown>): ChatCompletionChunk[] => {
    const d = isObject(data.delta) ? data.delta : {};
    if (d.type === 'text_delta' && typeof d.text === 'string') return [delta({ content: d.text })];
    if (d.type === 'thinking_delta' && typeof d.thinking === 'string') return [delta({ reasoning_content: d.thinking })];
    if (d.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json) {
      const index = toolIndexByBlock.get(Number(data.index));
      if (index === undefined) return [];
      return [delta({ tool_calls: [{ index, function: { arguments: d.partial_json } }] })];
    }
    return [];
  };

  const run = (events: SseEvent[]): ChatCompletionChunk[] => events.flatMap(handle);
  return {
    push: (bytes) => run(sse.push(bytes)),
    end: () => {
      const out = run(sse.end());
      if (!done)
        throw new GatewayError('provider_error', 'The provider stream ended early (no message_stop event).', { provider, status: 502 });
      return out;
    },
  };
}
