import type { ChatCompletionChunk, ChatCompletionChunkChoice, ChatCompletionRequest, Usage } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, StreamMapper } from '../provider.js';
import { EventStreamDecoder, type EventStreamMessage } from './bedrock-event-stream.js';
import { mapBedrockStreamException } from './bedrock-error.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';
import { mapBedrockUsage } from './map-bedrock-usage.js';
import type { BedrockUsage } from './bedrock-types.js';

const PROVIDER = 'bedrock';

type Delta = ChatCompletionChunkChoice['delta'];

/**
 * Maps a ConverseStream body (binary event-stream messages) to common chunks: `messageStart` → the
 * role chunk, `contentBlockStart` with `toolUse` → a tool call's first delta, `contentBlockDelta` →
 * text, tool-argument or reasoning deltas, `messageStop` → the finish chunk, `metadata` → a usage
 * chunk with `choices: []`. Exception events throw with their status; a body that ends before
 * `messageStop` throws a 502.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export function createBedrockStreamMapper(req: ChatCompletionRequest, ctx: CallContext): StreamMapper<ChatCompletionChunk> {
  const decoder = new EventStreamDecoder(PROVIDER);
  const base = {
    id: prefixedId('chatcmpl-'),
    object: 'chat.completion.chunk' as const,
    created: unixSeconds(ctx.clock),
    model: req.model ?? '',
  };
  const toolIndexByBlock = new Map<number, number>();
  let started = false;
  let stopped = false;

  const chunk = (delta: Delta, finish: ChatCompletionChunkChoice['finish_reason'] = null): ChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const usageChunk = (usage: Usage): ChatCompletionChunk => ({ ...base, choices: [], usage });

  const toolIndex = (block: number): number => {
    let i = toolIndexByBlock.get(block);
    if (i === undefined) {
      i = toolIndexByBlock.size;
      toolIndexByBlock.set(block, i);
    }
    return i;
  };

  const handle = (msg: EventStreamMessage): ChatCompletionChunk[] => {
    const messageType = msg.headers[':message-type'];
    if (messageType === 'exception') throw mapBedrockStreamException(msg.headers[':exception-type'] ?? 'internalServerException', msg.body);
    if (messageType === 'error') {
      throw new GatewayError('provider_error', msg.headers[':error-message'] || 'Bedrock reported a stream error.', {
        provider: PROVIDER,
        status: 502,
        publicCode: msg.headers[':error-code'] ?? null,
      });
    }
    const data = tryParseJson(msg.body);
    const ev = isObject(data) ? data : {};
    const out: ChatCompletionChunk[] = [];
    const ensureStarted = (): void => {
      if (!started) out.push(chunk({ role: 'assistant', content: '' }));
      started = true;
    };
    const block = typeof ev.contentBlockIndex === 'number' ? ev.contentBlockIndex : 0;
    switch (msg.headers[':event-type']) {
      case 'messageStart':
        ensureStarted();
        break;
      case 'contentBlockStart': {
        ensureStarted();
        const toolUse = isObject(ev.start) && isObject(ev.start.toolUse) ? ev.start.toolUse : undefined;
        if (toolUse) {
          const call = {
            index: toolIndex(block),
            id: String(toolUse.toolUseId ?? ''),
            type: 'function' as const,
            function: { name: String(toolUse.name ?? ''), arguments: '' },
          };
          out.push(chunk({ tool_calls: [call] }));
        }
        break;
      }
      case 'contentBlockDelta': {
        ensureStarted();
        const delta = isObject(ev.delta) ? ev.delta : {};
        if (typeof delta.text === 'string') out.push(chunk({ content: delta.text }));
        else if (isObject(delta.toolUse) && typeof delta.toolUse.input === 'string') {
          out.push(chunk({ tool_calls: [{ index: toolIndex(block), function: { arguments: delta.toolUse.input } }] }));
        } else if (isObject(delta.reasoningContent) && typeof delta.reasoningContent.text === 'string') {
          out.push(chunk({ reasoning_content: delta.reasoningContent.text }));
        }
        break;
      }
      case 'messageStop':
        ensureStarted();
        stopped = true;
        out.push(chunk({}, mapBedrockFinishReason(typeof ev.stopReason === 'string' ? ev.stopReason : undefined)));
        break;
      case 'metadata':
        if (isObject(ev.usage)) out.push(usageChunk(mapBedrockUsage(ev.usage as BedrockUsage)));
        break;
      default:
        break;
    }
    return out;
  };

  return {
    push: (bytes) => decoder.push(bytes).flatMap(handle),
    end: () => {
      if (!stopped) throw new GatewayError('provider_error', 'stream ended early', { provider: PROVIDER, status: 502 });
      return [];
    },
  };
}
