import { isObject } from '../../../foundation/lib/json.js';
import type { ChatCompletionChunk, FinishReason, Usage } from '../../../foundation/spec/chat.js';
import type { MessagesStreamEvent } from '../../../foundation/spec/messages.js';
import { mapFinishReasonToStopReason, mapUsageToMessages, messageIdOf } from './map-chat-to-message.js';

type BlockKind = 'thinking' | 'text' | 'tool_use';

/**
 * Turns common chat chunks into the Messages API stream, incrementally: `message_start` first, then
 * one content block per run of reasoning (`thinking_delta`), text (`text_delta`) or tool call
 * (`tool_use` start + `input_json_delta` pieces), each closed by `content_block_stop` before the next
 * opens, and at the end `message_delta` (stop reason, usage) and `message_stop`. One instance per stream.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export class ChatStreamToMessageEvents {
  private started = false;
  private open: { kind: BlockKind; index: number; tool?: number } | undefined;
  private nextIndex = 0;
  private finish: FinishReason | null = null;
  private usage: Usage | undefined;

  constructor(private readonly model: string) {}

  /** The events one chunk completes. */
  push(chunk: ChatCompletionChunk): MessagesStreamEvent[] {
    const out: MessagesStreamEvent[] = [];
    if (!this.started) out.push(this.start(chunk));
    if (isObject(chunk.usage)) this.usage = chunk.usage as Usage;
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
        out.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.function?.name ?? '', input: {} } });
      }
      const piece = call.function?.arguments;
      if (typeof piece === 'string' && piece) out.push(this.delta({ type: 'input_json_delta', partial_json: piece }));
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
    return out;
  }

  /** The closing events, after the last chunk. */
  end(): MessagesStreamEvent[] {
    const out: MessagesStreamEvent[] = [];
    if (!this.started) out.push(this.start(undefined));
    this.close(out);
    const usage = mapUsageToMessages(this.usage);
    out.push({ type: 'message_delta', delta: { stop_reason: mapFinishReasonToStopReason(this.finish), stop_sequence: null }, usage });
    out.push({ type: 'message_stop' });
    return out;
  }

  private start(chunk: ChatCompletionChunk | undefined): MessagesStreamEvent {
    this.started = true;
    const model = typeof chunk?.model === 'string' && chunk.model ? chunk.model : this.model;
    return {
      type: 'message_start',
      message: { id: messageIdOf(chunk?.id), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
    };
  }

  private ensure(out: MessagesStreamEvent[], kind: 'thinking' | 'text'): void {
    if (this.open?.kind === kind) return;
    this.close(out);
    const index = this.nextIndex++;
    this.open = { kind, index };
    out.push({ type: 'content_block_start', index, content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' } });
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
