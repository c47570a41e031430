import type { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { Usage } from '../../../foundation/spec/chat.js';
import type { ResponseItem, ResponseObject, ResponseStreamEvent } from '../../../foundation/spec/responses.js';
import { itemId } from './normalize-input-items.js';
import {
  finishStatus,
  functionCallItem,
  messageItem,
  outputTextOf,
  reasoningItem,
  responseError,
  responseUsage,
} from './response-object.js';

type Event = Omit<ResponseStreamEvent, 'sequence_number'>;

interface OpenCall {
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  args: string;
}

/**
 * Turns common chat chunks into Responses stream events, keeping the response snapshot:
 * `response.created`, `response.in_progress`, then per output item `response.output_item.added`,
 * (`response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`,
 * `response.content_part.done`) or (`response.function_call_arguments.delta`…, `…done`),
 * `response.output_item.done`, and finally `response.completed`, `response.incomplete` or `response.failed`.
 * Reasoning text is collected and emitted as one reasoning item before the message.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export class ChatStreamToResponseEvents {
  private seq = 0;
  private readonly output: ResponseItem[] = [];
  private reasoning = '';
  private message?: { outputIndex: number; id: string; text: string };
  private readonly calls = new Map<number, OpenCall>();
  private finish: string | null = null;
  private usage?: Usage;
  private model?: string;
  private closed = false;

  constructor(private readonly base: ResponseObject) {}

  /** The opening events (`response.created`, `response.in_progress`). */
  start(): ResponseStreamEvent[] {
    return [
      this.ev({ type: 'response.created', response: this.snapshot('in_progress') }),
      this.ev({ type: 'response.in_progress', response: this.snapshot('in_progress') }),
    ];
  }

  /** Events for one chat chunk (none for role-only or usage-only chunks). */
  push(chunk: Record<string, unknown>): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (isObject(chunk.usage)) this.usage = chunk.usage as unknown as Usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isObject(c) && (c.index ?? 0) === 0) : undefined;
    if (!isObject(choice)) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) this.reasoning += delta.reasoning_content;
    if (typeof delta.content === 'string' && delta.content) out.push(...this.text(delta.content));
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) if (isObject(tc)) out.push(...this.toolCall(tc));
    if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    return out;
  }

  /** The closing events after a clean end: open items done, then `response.completed` or `response.incomplete`. */
  end(): { events: ResponseStreamEvent[]; response: ResponseObject } {
    const { status, incomplete_details } = finishStatus(this.finish);
    const out = this.closeAll(status === 'incomplete' ? 'incomplete' : 'completed');
    const response = { ...this.snapshot(status), incomplete_details, usage: responseUsage(this.usage) };
    out.push(this.ev({ type: status === 'incomplete' ? 'response.incomplete' : 'response.completed', response }));
    return { events: out, response };
  }

  /** The closing event after a failure: `response.failed` with `error` (items so far kept, marked incomplete). */
  fail(err: GatewayError): { events: ResponseStreamEvent[]; response: ResponseObject } {
    this.closeAll('incomplete', false);
    const response = { ...this.snapshot('failed'), error: responseError(err), usage: responseUsage(this.usage) };
    return { events: [this.ev({ type: 'response.failed', response })], response };
  }

  private text(delta: string): ResponseStreamEvent[] {
    const out = this.flushReasoning();
    if (!this.message) out.push(...this.openMessage());
    const m = this.message!;
    m.text += delta;
    out.push(
      this.ev({ type: 'response.output_text.delta', item_id: m.id, output_index: m.outputIndex, content_index: 0, delta, logprobs: [] }),
    );
    return out;
  }

  private openMessage(): ResponseStreamEvent[] {
    const m = { outputIndex: this.output.length, id: itemId('msg'), text: '' };
    this.message = m;
    const item = { ...messageItem(m.id, '', 'in_progress'), content: [] };
    this.output.push(item);
    return [
      this.ev({ type: 'response.output_item.added', output_index: m.outputIndex, item }),
      this.ev({
        type: 'response.content_part.added',
        item_id: m.id,
        output_index: m.outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }),
    ];
  }

  private toolCall(tc: Record<string, unknown>): ResponseStreamEvent[] {
    const out = this.flushReasoning();
    const index = typeof tc.index === 'number' ? tc.index : 0;
    const fn = isObject(tc.function) ? tc.function : {};
    let call = this.calls.get(index);
    if (!call) {
      call = {
        outputIndex: this.output.length,
        id: itemId('fc'),
        callId: typeof tc.id === 'string' ? tc.id : itemId('fc'),
        name: typeof fn.name === 'string' ? fn.name : '',
        args: '',
      };
      this.calls.set(index, call);
      const item = functionCallItem(call.id, call.callId, call.name, '', 'in_progress');
      this.output.push(item);
      out.push(this.ev({ type: 'response.output_item.added', output_index: call.outputIndex, item }));
    }
    if (typeof fn.arguments === 'string' && fn.arguments) {
      call.args += fn.arguments;
      out.push(
        this.ev({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: call.outputIndex, delta: fn.arguments }),
      );
    }
    return out;
  }

  private flushReasoning(): ResponseStreamEvent[] {
    if (!this.reasoning) return [];
    const item = reasoningItem(itemId('rs'), this.reasoning);
    this.reasoning = '';
    const outputIndex = this.output.length;
    this.output.push(item);
    return [
      this.ev({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, summary: [] } }),
      this.ev({ type: 'response.output_item.done', output_index: outputIndex, item }),
    ];
  }

  private closeAll(status: 'completed' | 'incomplete', emit = true): ResponseStreamEvent[] {
    if (this.closed) return [];
    this.closed = true;
    const out = emit ? this.flushReasoning() : [];
    // An empty answer still yields one (empty) message, as the non-streamed mapping does.
    if (emit && !this.message && this.calls.size === 0) out.push(...this.openMessage());
    const m = this.message;
    if (m) {
      const part = { type: 'output_text', text: m.text, annotations: [], logprobs: [] };
      const item = messageItem(m.id, m.text, status);
      this.output[m.outputIndex] = item;
      if (emit) {
        out.push(
          this.ev({
            type: 'response.output_text.done',
            item_id: m.id,
            output_index: m.outputIndex,
            content_index: 0,
            text: m.text,
            logprobs: [],
          }),
        );
        out.push(this.ev({ type: 'response.content_part.done', item_id: m.id, output_index: m.outputIndex, content_index: 0, part }));
        out.push(this.ev({ type: 'response.output_item.done', output_index: m.outputIndex, item }));
      }
    }
    for (const c of this.calls.values()) {
      const item = functionCallItem(c.id, c.callId, c.name, c.args, status);
      this.output[c.outputIndex] = item;
      if (emit) {
        out.push(
          this.ev({
            type: 'response.function_call_arguments.done',
            item_id: c.id,
            output_index: c.outputIndex,
            name: c.name,
            arguments: c.args,
          }),
        );
        out.push(this.ev({ type: 'response.output_item.done', output_index: c.outputIndex, item }));
      }
    }
    return out;
  }

  private snapshot(status: ResponseObject['status']): ResponseObject {
    const output = this.output.map((i) => ({ ...i }));
    return { ...this.base, model: this.model ?? this.base.model, status, output, output_text: outputTextOf(output) };
  }

  private ev(e: Event): ResponseStreamEvent {
    return { ...e, sequence_number: this.seq++ } as ResponseStreamEvent;
  }
}
