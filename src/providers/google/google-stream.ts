import type { ChatCompletionChunk, ChatCompletionChunkChoice, Usage } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { SseDecoder } from '../../foundation/lib/sse.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import type { StreamMapper } from '../provider.js';
import { mapGoogleUsage, toolCallOf } from './google-chat.js';
import { googleStreamError } from './google-error.js';
import { mapGoogleFinishReason } from './map-google-finish-reason.js';

interface CandidateState {
  toolCalls: number;
  finished: boolean;
}

/**
 * Maps a Gemini `streamGenerateContent?alt=sse` body (one `GenerateContentResponse` per `data:` frame)
 * to common chunks: a role chunk per candidate, content / reasoning_content / tool_call deltas, a
 * finish chunk, and at the end one usage chunk (`choices: []`) from the last `usageMetadata`.
 * Gemini has no terminal event: a stream whose candidates never reported a `finishReason` ended early.
 * Shared with vertex-ai.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export function createGoogleStreamMapper(provider: string, model: string, created: number): StreamMapper<ChatCompletionChunk> {
  const sse = new SseDecoder();
  const candidates = new Map<number, CandidateState>();
  let id: string | undefined;
  let modelName = model;
  let usage: Usage | undefined;
  let blocked = false;

  const chunk = (choices: ChatCompletionChunkChoice[]): ChatCompletionChunk => ({
    id: id!,
    object: 'chat.completion.chunk',
    created,
    model: modelName,
    choices,
  });

  const handleFrame = (frame: Record<string, unknown>, out: ChatCompletionChunk[]): void => {
    if (id === undefined) {
      id = typeof frame.responseId === 'string' ? `chatcmpl-${frame.responseId}` : prefixedId('chatcmpl-');
      if (typeof frame.modelVersion === 'string') modelName = frame.modelVersion;
    }
    usage = mapGoogleUsage(frame.usageMetadata) ?? usage;
    const list = Array.isArray(frame.candidates) ? frame.candidates.filter(isObject) : [];
    if (list.length === 0 && isObject(frame.promptFeedback) && frame.promptFeedback.blockReason !== undefined && candidates.size === 0) {
      blocked = true;
      out.push(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]));
      out.push(chunk([{ index: 0, delta: {}, finish_reason: 'content_filter', logprobs: null }]));
      return;
    }
    list.forEach((cand, i) => {
      const index = typeof cand.index === 'number' ? cand.index : i;
      let state = candidates.get(index);
      if (!state) {
        state = { toolCalls: 0, finished: false };
        candidates.set(index, state);
        out.push(chunk([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]));
      }
      const parts = isObject(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts.filter(isObject) : [];
      for (const part of parts) {
        const call = toolCallOf(part);
        if (call) {
          const tcIndex = state.toolCalls++;
          const head = {
            index: tcIndex,
            id: call.id,
            type: 'function' as const,
            function: { name: call.function.name, arguments: '' },
            ...(call.extra_content ? { extra_content: call.extra_content } : {}),
          };
          out.push(chunk([{ index, delta: { tool_calls: [head] }, finish_reason: null, logprobs: null }]));
          out.push(
            chunk([
              {
                index,
                delta: { tool_calls: [{ index: tcIndex, function: { arguments: call.function.arguments } }] },
                finish_reason: null,
                logprobs: null,
              },
            ]),
          );
        } else if (typeof part.text === 'string' && part.text.length) {
          const delta = part.thought === true ? { reasoning_content: part.text } : { content: part.text };
          out.push(chunk([{ index, delta, finish_reason: null, logprobs: null }]));
        }
      }
      if (cand.finishReason !== undefined && !state.finished) {
        state.finished = true;
        out.push(
          chunk([{ index, delta: {}, finish_reason: mapGoogleFinishReason(cand.finishReason, state.toolCalls > 0), logprobs: null }]),
        );
      }
    });
  };

  /** An error frame that arrived after good frames in the same push: thrown on the next call, so those frames still go out. */
  let pendingError: GatewayError | undefined;
  const handle = (events: ReturnType<SseDecoder['push']>): ChatCompletionChunk[] => {
    if (pendingError) throw pendingError;
    const out: ChatCompletionChunk[] = [];
    for (const ev of events) {
      const frame = tryParseJson(ev.data);
      const error = googleStreamError(provider, frame);
      if (error && out.length === 0) throw error;
      if (error) {
        pendingError = error;
        return out;
      }
      if (isObject(frame)) handleFrame(frame, out);
    }
    return out;
  };

  return {
    push: (bytes) => handle(sse.push(bytes)),
    end: () => {
      const out = handle(sse.end());
      const finished = blocked || (candidates.size > 0 && [...candidates.values()].every((c) => c.finished));
      if (!finished) throw new GatewayError('provider_error', 'stream ended early', { provider, status: 502 });
      if (usage) out.push({ ...chunk([]), usage });
      return out;
    },
  };
}
