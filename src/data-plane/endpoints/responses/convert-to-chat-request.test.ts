import { describe, expect, it } from 'vitest';
import { convertToChatRequest } from './convert-to-chat-request.js';
import { normalizeInputItems } from './normalize-input-items.js';

describe('convertToChatRequest', () => {
  it('maps instructions, settings, function tools, tool_choice, text.format and reasoning', () => {
    const chat = convertToChatRequest(
      {
        model: 'm',
        instructions: 'Be brief.',
        stream: true,
        max_output_tokens: 64,
        temperature: 0.5,
        top_p: 0.9,
        user: 'u',
        parallel_tool_calls: false,
        tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: true }],
        tool_choice: { type: 'function', name: 'f' },
        text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'low' },
      },
      normalizeInputItems('hi'),
    );
    expect(chat).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u',
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'low',
    });
  });

  it('maps message, function_call and function_call_output items; calls join the assistant turn before them', () => {
    const items = normalizeInputItems([
      { role: 'developer', content: 'rules' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look ' },
          { type: 'input_text', text: 'up' },
        ],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Sure.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'call_2', name: 'g', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'one' },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'two' }] },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' },
          { type: 'input_text', text: 'and this' },
        ],
      },
    ]);
    expect(convertToChatRequest({ input: [] }, items).messages).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'look up' },
      {
        role: 'assistant',
        content: 'Sure.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'g', arguments: '{"a":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'one' },
      { role: 'tool', tool_call_id: 'call_2', content: 'two' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } },
          { type: 'text', text: 'and this' },
        ],
      },
    ]);
  });

  it('drops tool kinds chat cannot run and refuses what it cannot carry, naming the field', () => {
    expect(convertToChatRequest({ tools: [{ type: 'web_search' }] }, [])).not.toHaveProperty('tools');
    expect(() => convertToChatRequest({ tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }, [])).toThrow(
      expect.objectContaining({ status: 400, param: 'tool_choice' }),
    );
    expect(() => convertToChatRequest({ truncation: 'smart' } as never, [])).toThrow(
      expect.objectContaining({ status: 400, param: 'truncation' }),
    );
    expect(() => convertToChatRequest({ tool_choice: { type: 'file_search' } }, [])).toThrow(
      expect.objectContaining({ status: 400, param: 'tool_choice' }),
    );
    expect(() => convertToChatRequest({}, normalizeInputItems([{ type: 'computer_call_output', call_id: 'c' }]))).toThrow(
      expect.objectContaining({ status: 400, param: 'input[0].type' }),
    );
  });
});

describe('normalizeInputItems', () => {
  it('gives every item an id and message content parts', () => {
    const items = normalizeInputItems([
      { role: 'assistant', content: 'prior' },
      { type: 'function_call_output', call_id: 'c', output: 'o', id: 'fco_given' },
    ]);
    expect(items[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'prior', annotations: [] }],
    });
    expect(items[0]!.id).toMatch(/^msg_/);
    expect(items[1]).toEqual({ type: 'function_call_output', call_id: 'c', output: 'o', id: 'fco_given', status: 'completed' });
  });
});
