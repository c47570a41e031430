import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { ChatStreamToResponseEvents } from './chat-stream-to-response-events.js';
import { baseResponse } from './response-object.js';

const base = () => baseResponse({ model: 'm', input: 'x' }, 'resp_1', 1700000000);
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'provider-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

describe('ChatStreamToResponseEvents', () => {
  it('maps text deltas to the message event sequence and ends with response.completed and usage', () => {
    const m = new ChatStreamToResponseEvents(base());
    const evs = [
      ...m.start(),
      ...m.push(chunk({ role: 'assistant', content: '' })),
      ...m.push(chunk({ content: 'Hel' })),
      ...m.push(chunk({ content: 'lo' })),
      ...m.push(chunk({}, 'stop')),
    ];
    evs.push(
      ...m.push({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'provider-model',
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      }),
    );
    const end = m.end();
    evs.push(...end.events);
    expect(evs.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs[6]).toMatchObject({ text: 'Hello', output_index: 0, content_index: 0 });
    expect(end.response).toMatchObject({
      status: 'completed',
      model: 'provider-model',
      output_text: 'Hello',
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
    expect(end.response.output[0]).toMatchObject({
      type: 'message',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
    });
    expect(evs[0]!.response).toMatchObject({ status: 'in_progress', output: [] });
  });

  it('maps parallel tool-call deltas to function_call items with argument deltas', () => {
    const m = new ChatStreamToResponseEvents(base());
    m.start();
    const evs = [
      ...m.push(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] })),
      ...m.push(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y"' } }] })),
      ...m.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] })),
      ...m.push(chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }, 'tool_calls')),
    ];
    const end = m.end();
    expect(evs.filter((e) => e.type === 'response.output_item.added').map((e) => (e.item as { call_id: string }).call_id)).toEqual([
      'call_a',
      'call_b',
    ]);
    expect(end.events.filter((e) => e.type === 'response.function_call_arguments.done').map((e) => [e.name, e.arguments])).toEqual([
      ['f', '{"x":1}'],
      ['g', '{"y":2}'],
    ]);
    expect(end.response.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{"x":1}', status: 'completed' }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_b', name: 'g', arguments: '{"y":2}', status: 'completed' }),
    ]);
  });

  it('puts reasoning before the message and marks a length finish as incomplete', () => {
    const m = new ChatStreamToResponseEvents(base());
    m.start();
    m.push(chunk({ reasoning_content: 'think' }));
    const evs = m.push(chunk({ content: 'answer' }));
    m.push(chunk({}, 'length'));
    const end = m.end();
    expect(evs[0]).toMatchObject({ type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning' } });
    expect(end.events.at(-1)!.type).toBe('response.incomplete');
    expect(end.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(end.response.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(end.response.output[1]!.status).toBe('incomplete');
  });

  it('fails with response.failed carrying error and the partial output', () => {
    const m = new ChatStreamToResponseEvents(base());
    m.start();
    m.push(chunk({ content: 'part' }));
    const end = m.fail(
      new GatewayError('provider_error', 'Overloaded', { provider: 'anthropic', status: 529, publicCode: 'overloaded_error' }),
    );
    expect(end.events).toHaveLength(1);
    expect(end.events[0]!.type).toBe('response.failed');
    expect(end.response).toMatchObject({
      status: 'failed',
      error: { code: 'overloaded_error', message: 'Overloaded' },
      output_text: 'part',
    });
    const m2 = new ChatStreamToResponseEvents(base());
    expect(m2.fail(new GatewayError('provider_error', 'gone', { provider: 'x', status: 502 })).response.error).toEqual({
      code: 'server_error',
      message: 'gone',
    });
  });

  it('an empty answer still yields one empty message', () => {
    const m = new ChatStreamToResponseEvents(base());
    m.start();
    m.push(chunk({}, 'stop'));
    const end = m.end();
    expect(end.events.map((e) => e.type)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(end.response.output).toHaveLength(1);
  });
});
