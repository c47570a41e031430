import { isObject } from '../../../foundation/lib/json.js';
import type { ChatCompletionChunk, FinishReason, Usage } from '../../../foundation/spec/chat.js';
import type { MessagesStreamEvent } from '../../../foundation/spec/messages.js';
import { mapFinishReasonToStopReason, mapUsageToMessages, matchedStopSequence, messageIdOf } from './map-chat-to-message.js';

type BlockKind = 'thinking' | 'text' | 'tool_use';

/**
 * Turns common chat chunks into the Messages API stream, incrementally: `message_start` first, then
 * one content block per run of reasoning (`thinking_delta`), text (`text_delta`) or tool call
 * (`tool_use` start + `input_json_delta` pieces), each closed by `content_block_stop` before the next
 * opens, and at the end `message_delta` (stop reason, stop sequence, usage) and `message_stop`. One instance per stream.
 * `message_start` reports the input tokens of the first chunk's usage when the upstream sends it there,
 * else `inputEstimate` (the gateway's count of the request); `message_delta` reports the upstream's exact counts.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export class ChatStreamToMessageEvents {
  private started = false;
  private open: { kind: BlockKind; index: number; tool?: number } | undefined;
  private nextIndex = 0;
  private finish: FinishReason | null = null;
  private usage: Usage | undefined;
  private stopSequence: string | null = null;

  constructor(
    private readonly model: string,
    private readonly inputEstimate = 0,
  ) {}

  /** The events one chunk completes. */
  push(chunk: ChatCompletionChunk): MessagesStreamEvent[] {
    const out: MessagesStreamEvent[] = [];
    if (isObject(chunk.usage)) this.usage = chunk.usage as Usage;
    if (!this.started) out.push(this.start(chunk));
    const choice = chunk.choices?.[0];
    if (!choice) return out;
    const d = choice.delta ?? {};
    if (typeof d.reasoning_content === 'string' && d.reasoning_content) {
      this.ensure(out, 'thinking');
      out.push(this.delta({ type: 'thinking_delta', thinking: d.reasoning_content }));
    }
    if (typeof d.content === 'string' && d.content) {
      this.ensure(out, 'text');
      out.push(this.delta({ type: 'text_delta', text: d.content }));
    }
    for (const call of d.tool_calls ?? []) {
      if (!this.open || this.open.kind !== 'tool_use' || this.open.tool !== call.index) {
        this.close(out);
        const index = this.nextIndex++;
        this.open = { kind: 'tool_use', index, tool: call.index };
        out.push({
          type: 'content_block_start',
          index,
          content_block: {
            type: 'tool_use',
            id: call.id ?? `toolu_${index}`,
            name: call.function?.name ?? '',
            input: {},
            caller: { type: 'direct' },
          },
        });
      }
      const piece = call.function?.arguments;
      if (typeof piece === 'string' && piece) out.push(this.delta({ type: 'input_json_delta', partial_json: piece }));
    }
    if (choice.finish_reason) {
      this.finish = choice.finish_reason;
      this.stopSequence = matchedStopSequence(choice);
    }
    return out;
  }

  /** The closing events, after the last chunk. */
  end(): MessagesStreamEvent[] {
    const out: MessagesStreamEvent[] = [];
    if (!this.started) out.push(this.start(undefined));
    this.close(out);
    const u = mapUsageToMessages(this.usage);
    const usage = {
      input_tokens: this.usage ? u.input_tokens : this.inputEstimate,
      output_tokens: u.output_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      output_tokens_details: u.output_tokens_details,
      server_tool_use: null,
    };
    const stopReason = this.stopSequence === null ? mapFinishReasonToStopReason(this.finish) : 'stop_sequence';
    out.push({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: this.stopSequence, stop_details: null, container: null },
      usage,
    });
    out.push({ type: 'message_stop' });
    return out;
  }

  private start(chunk: ChatCompletionChunk | undefined): MessagesStreamEvent {
    this.started = true;
    const model = typeof chunk?.model === 'string' && chunk.model ? chunk.model : this.model;
    const usage = this.usage ? mapUsageToMessages(this.usage) : { ...mapUsageToMessages(undefined), input_tokens: this.inputEstimate };
    return {
      type: 'message_start',
      message: {
        id: messageIdOf(chunk?.id),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage,
      },
    };
  }

  private ensure(out: MessagesStreamEvent[], kind: 'thinking' | 'text'): void {
    if (this.open?.kind === kind) return;
    this.close(out);
    const index = this.nextIndex++;
    this.open = { kind, index };
    out.push({
      type: 'content_block_start',
      index,
      content_block: kind === 'text' ? { type: 'text', text: '', citations: null } : { type: 'thinking', thinking: '', signature: '' },
    });
  }

  private delta(delta: Record<string, unknown>): MessagesStreamEvent {
    return { type: 'content_block_delta', index: this.open!.index, delta };
  }

  private close(out: MessagesStreamEvent[]): void {
    if (!this.open) return;
    out.push({ type: 'content_block_stop', index: this.open.index });
    this.open = undefined;
  }
}

/** One event as SSE bytes: `event: <type>` and `data: <json>`. */
export function messageEventBytes(ev: MessagesStreamEvent): Buffer {
  return Buffer.from(`event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`);
}
