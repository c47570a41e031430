import type { ChatCompletionChunk, ChatCompletionChunkChoice, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { SseDecoder, type SseEvent } from '../../foundation/lib/sse.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import type { CallContext, StreamMapper } from '../provider.js';
import { COHERE_DEFAULT_CHAT_MODEL, type CohereUsage } from './cohere-api-types.js';
import { cohereFailureStatus, mapCohereFinishReason } from './map-cohere-finish-reason.js';
import { mapCohereUsage } from './map-cohere-usage.js';

type Delta = ChatCompletionChunkChoice['delta'];

function get(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) v = isObject(v) ? v[key] : undefined;
  return v;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Maps a Cohere v2 chat stream (SSE, `event: <type>` + `data: <json>` frames) to common chunks:
 * `message-start` → the role chunk; `content-delta` → content (or `reasoning_content` for thinking);
 * `tool-plan-delta` → content; `tool-call-start`/`tool-call-delta` → tool-call deltas; `message-end` → the
 * finish chunk and a usage chunk (`choices: []`). `message-end` with `ERROR`/`TIMEOUT`, an error object, or a
 * body that ends before `message-end` throws a `provider_error`.
 * @see https://docs.cohere.com/reference/chat-stream
 * @see https://docs.cohere.com/docs/streaming
 */
export function createCohereStreamMapper(req: ChatCompletionRequest, ctx: CallContext): StreamMapper<ChatCompletionChunk> {
  const sse = new SseDecoder();
  const created = unixSeconds(ctx.clock);
  const model = req.model ?? COHERE_DEFAULT_CHAT_MODEL;
  let id = '';
  let done = false;
  const toolIndex = new Map<number, number>();
  let lastTool = -1;

  const chunk = (delta: Delta, finish: ChatCompletionChunkChoice['finish_reason'] = null): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });

  const fail = (message: string, status: number): never => {
    throw new GatewayError('provider_error', message, { provider: 'cohere', status });
  };

  function handle(ev: SseEvent, out: ChatCompletionChunk[]): void {
    if (done || ev.data === '[DONE]') return;
    const value = tryParseJson(ev.data);
    if (!isObject(value)) return;
    const type = str(value.type) ?? ev.event;
    if (!type) {
      if (typeof value.message === 'string') fail(value.message, 502);
      return;
    }
    if (!id) {
      id = `chatcmpl-${str(value.id) ?? prefixedId('', 24)}`;
      out.push(chunk({ role: 'assistant', content: '' }));
    }
    switch (type) {
      case 'content-delta': {
        const content = get(value, 'delta', 'message', 'content');
        const thinking = str(get(content, 'thinking'));
        const text = str(get(content, 'text'));
        if (thinking) out.push(chunk({ reasoning_content: thinking }));
        else if (text) out.push(chunk({ content: text }));
        return;
      }
      case 'tool-plan-delta': {
        const plan = str(get(value, 'delta', 'message', 'tool_plan'));
        if (plan) out.push(chunk({ content: plan }));
        return;
      }
      case 'tool-call-start': {
        const call = get(value, 'delta', 'message', 'tool_calls');
        lastTool = toolIndex.size;
        if (typeof value.index === 'number') toolIndex.set(value.index, lastTool);
        const name = str(get(call, 'function', 'name')) ?? '';
        out.push(
          chunk({
            tool_calls: [
              { index: lastTool, id: str(get(call, 'id')) ?? `call_${lastTool}`, type: 'function', function: { name, arguments: '' } },
            ],
          }),
        );
        const initial = str(get(call, 'function', 'arguments'));
        if (initial) out.push(chunk({ tool_calls: [{ index: lastTool, function: { arguments: initial } }] }));
        return;
      }
      case 'tool-call-delta': {
        const args = str(get(value, 'delta', 'message', 'tool_calls', 'function', 'arguments'));
        const index = typeof value.index === 'number' ? (toolIndex.get(value.index) ?? lastTool) : lastTool;
        if (args && index >= 0) out.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
        return;
      }
      case 'message-end': {
        const delta = get(value, 'delta');
        const reason = str(get(delta, 'finish_reason'));
        const status = cohereFailureStatus(reason);
        if (status) fail(str(get(delta, 'error')) || `Cohere stopped the generation (${reason}).`, status);
        done = true;
        out.push(chunk({}, mapCohereFinishReason(reason)));
        const usage = get(delta, 'usage');
        if (isObject(usage))
          out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: mapCohereUsage(usage as CohereUsage) });
        return;
      }
      default:
        return;
    }
  }

  // An error met after some chunks of the same push is held back: those chunks are returned first and
  // the error is thrown by the next push() or end(), so text produced before a failure still reaches the client.
  let pending: unknown;
  const run = (events: SseEvent[]): ChatCompletionChunk[] => {
    if (pending) throw pending;
    const out: ChatCompletionChunk[] = [];
    try {
      for (const ev of events) handle(ev, out);
    } catch (err) {
      if (out.length === 0) throw err;
      pending = err;
    }
    return out;
  };

  return {
    push: (bytes) => run(sse.push(bytes)),
    end: () => {
      const out = run(sse.end());
      if (pending) throw pending;
      if (!done) fail('Cohere stream ended early (no message-end event).', 502);
      return out;
    },
  };
}
