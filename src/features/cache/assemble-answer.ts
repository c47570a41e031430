import { isObject } from '../../foundation/lib/json.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';

interface ToolCallState {
  id?: string;
  type: string;
  name: string;
  args: string[];
}

interface ChoiceState {
  text: string[];
  reasoning: string[];
  refusal: string[];
  tools: Map<number, ToolCallState>;
  finish: unknown;
}

const HEAD_FIELDS = ['id', 'created', 'model', 'system_fingerprint', 'service_tier'];

/**
 * Rebuilds the final, non-streamed answer from the common-schema chunks of a stream (chat:
 * content, reasoning_content, refusal, tool_calls, finish_reason, usage; completions: text,
 * finish_reason, usage), so that a streamed miss is stored in the same form as a JSON answer.
 */
export class AnswerAssembler {
  private readonly head: Record<string, unknown> = {};
  private readonly choices = new Map<number, ChoiceState>();
  private usage: unknown;

  constructor(private readonly endpoint: ProviderEndpointKind) {}

  push(chunk: Record<string, unknown>): void {
    for (const f of HEAD_FIELDS) if (this.head[f] === undefined && chunk[f] !== undefined && chunk[f] !== null) this.head[f] = chunk[f];
    if (isObject(chunk.usage)) this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const c of chunk.choices) {
      if (!isObject(c)) continue;
      const index = typeof c.index === 'number' ? c.index : 0;
      let s = this.choices.get(index);
      if (!s) this.choices.set(index, (s = { text: [], reasoning: [], refusal: [], tools: new Map(), finish: null }));
      if (c.finish_reason !== undefined && c.finish_reason !== null) s.finish = c.finish_reason;
      if (typeof c.text === 'string') s.text.push(c.text);
      if (isObject(c.delta)) this.pushDelta(s, c.delta);
    }
  }

  private pushDelta(s: ChoiceState, d: Record<string, unknown>): void {
    if (typeof d.content === 'string') s.text.push(d.content);
    if (typeof d.reasoning_content === 'string') s.reasoning.push(d.reasoning_content);
    if (typeof d.refusal === 'string') s.refusal.push(d.refusal);
    if (!Array.isArray(d.tool_calls)) return;
    for (const tc of d.tool_calls) {
      if (!isObject(tc)) continue;
      const i = typeof tc.index === 'number' ? tc.index : s.tools.size;
      let t = s.tools.get(i);
      if (!t) s.tools.set(i, (t = { type: 'function', name: '', args: [] }));
      if (typeof tc.id === 'string') t.id = tc.id;
      if (typeof tc.type === 'string') t.type = tc.type;
      const fn = isObject(tc.function) ? tc.function : {};
      if (typeof fn.name === 'string' && fn.name) t.name = fn.name;
      if (typeof fn.arguments === 'string') t.args.push(fn.arguments);
    }
  }

  /** The assembled answer, or undefined when the stream carried no choice at all. */
  result(): Record<string, unknown> | undefined {
    if (this.choices.size === 0) return undefined;
    const indexes = [...this.choices.keys()].sort((a, b) => a - b);
    const chat = this.endpoint === 'chat';
    const choices = indexes.map((index) => {
      const s = this.choices.get(index)!;
      if (!chat) return { index, text: s.text.join(''), logprobs: null, finish_reason: s.finish };
      const toolCalls = [...s.tools.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, t]) => ({ id: t.id, type: t.type, function: { name: t.name, arguments: t.args.join('') } }));
      const text = s.text.join('');
      const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length ? null : text };
      if (s.refusal.length) message.refusal = s.refusal.join('');
      if (s.reasoning.length) message.reasoning_content = s.reasoning.join('');
      if (toolCalls.length) message.tool_calls = toolCalls;
      return { index, message, logprobs: null, finish_reason: s.finish };
    });
    const out: Record<string, unknown> = { id: this.head.id, object: chat ? 'chat.completion' : 'text_completion', ...this.head, choices };
    if (this.usage !== undefined) out.usage = this.usage;
    return out;
  }
}
