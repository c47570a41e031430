import { isObject } from '../../foundation/lib/json.js';
import type { ProviderEndpointKind } from '../../providers/provider.js';

/**
 * Turns a stored final answer back into common-schema stream chunks (decisions.md, "Streaming"):
 * chat — a role chunk, reasoning and content deltas, each tool call as a header delta then its
 * arguments, a finish chunk per choice, and a usage chunk (`choices: []`) when usage is known;
 * completions — a text chunk and a finish chunk per choice, then usage. Undefined when the stored
 * value is not a chat or text completion, or for any other endpoint (it is then treated as a miss).
 */
export function replayChunks(endpoint: ProviderEndpointKind, answer: unknown): Array<Record<string, unknown>> | undefined {
  if (!isObject(answer) || !Array.isArray(answer.choices) || (endpoint !== 'chat' && endpoint !== 'completions')) return undefined;
  const chat = endpoint === 'chat';
  const base: Record<string, unknown> = {
    id: answer.id,
    object: chat ? 'chat.completion.chunk' : 'text_completion',
    created: answer.created,
    model: answer.model,
  };
  if (answer.system_fingerprint !== undefined) base.system_fingerprint = answer.system_fingerprint;
  const out: Array<Record<string, unknown>> = [];
  const push = (choice: Record<string, unknown>) => out.push({ ...base, choices: [choice] });
  for (const c of answer.choices) {
    if (!isObject(c)) return undefined;
    const index = typeof c.index === 'number' ? c.index : 0;
    if (!chat) {
      push({ index, text: typeof c.text === 'string' ? c.text : '', logprobs: null, finish_reason: null });
      push({ index, text: '', logprobs: null, finish_reason: c.finish_reason ?? 'stop' });
      continue;
    }
    if (!isObject(c.message)) return undefined;
    const m = c.message;
    const delta = (d: Record<string, unknown>) => push({ index, delta: d, logprobs: null, finish_reason: null });
    delta({ role: 'assistant', content: '' });
    if (typeof m.reasoning_content === 'string' && m.reasoning_content) delta({ reasoning_content: m.reasoning_content });
    if (typeof m.content === 'string' && m.content) delta({ content: m.content });
    if (typeof m.refusal === 'string' && m.refusal) delta({ refusal: m.refusal });
    if (Array.isArray(m.tool_calls)) {
      m.tool_calls.forEach((tc, i) => {
        if (!isObject(tc)) return;
        const fn = isObject(tc.function) ? tc.function : {};
        delta({ tool_calls: [{ index: i, id: tc.id, type: tc.type ?? 'function', function: { name: fn.name, arguments: '' } }] });
        if (typeof fn.arguments === 'string' && fn.arguments) delta({ tool_calls: [{ index: i, function: { arguments: fn.arguments } }] });
      });
    }
    push({ index, delta: {}, logprobs: null, finish_reason: c.finish_reason ?? 'stop' });
  }
  if (isObject(answer.usage)) out.push({ ...base, choices: [], usage: answer.usage });
  return out;
}
