import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../foundation/spec/chat.js';
import { ChatStreamToMessageEvents } from './chat-stream-to-message-events.js';

const chunk = (
  delta: ChatCompletionChunk['choices'][number]['delta'],
  finish: string | null = null,
  extra: Partial<ChatCompletionChunk> = {},
): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

describe('ChatStreamToMessageEvents', () => {
  it('opens one block per run of thinking, text and tool call, closing each before the next', () => {
    const t = new ChatStreamToMessageEvents('req-model');
    const events = [
      ...t.push(chunk({ role: 'assistant', reasoning_content: 'think' })),
      ...t.push(chunk({ reasoning_content: ' more' })),
      ...t.push(chunk({ content: 'Hi' })),
      ...t.push(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a"' } }] })),
      ...t.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] })),
      ...t.push(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] })),
      ...t.push(chunk({}, 'tool_calls')),
      ...t.push({
        ...chunk({}),
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 3 } },
      }),
      ...t.end(),
    ];
    expect(events.map((e) => `${e.type}${'index' in e ? `#${String(e.index)}` : ''}`)).toEqual([
      'message_start',
      'content_block_start#0',
      'content_block_delta#0',
      'content_block_delta#0',
      'content_block_stop#0',
      'content_block_start#1',
      'content_block_delta#1',
      'content_block_stop#1',
      'content_block_start#2',
      'content_block_delta#2',
      'content_block_delta#2',
      'content_block_stop#2',
      'content_block_start#3',
      'content_block_delta#3',
      'content_block_stop#3',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]).toMatchObject({ message: { id: 'msg_chatcmpl-1', model: 'm', role: 'assistant', content: [] } });
    expect(events[8]).toMatchObject({ content_block: { type: 'tool_use', id: 'call_a', name: 'f', input: {} } });
    expect(events[10]).toMatchObject({ delta: { type: 'input_json_delta', partial_json: ':1}' } });
    expect(events[15]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 7,
        output_tokens: 4,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 3,
        output_tokens_details: null,
        server_tool_use: null,
      },
    });
  });

  it('still starts and stops a message when the stream had no chunk', () => {
    const t = new ChatStreamToMessageEvents('req-model');
    expect(t.end().map((e) => e.type)).toEqual(['message_start', 'message_delta', 'message_stop']);
  });
});
