import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildAnthropicMessagesBody, mapAnthropicResponse } from './anthropic-chat.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

describe('buildAnthropicMessagesBody', () => {
  it('maps sampling settings, stop, user and supplies max_tokens', () => {
    const body = buildAnthropicMessagesBody({
      model: 'claude-sonnet-4-20250514',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop: 'END',
      user: 'user-42',
      seed: 7,
      n: 1,
      frequency_penalty: 0.5,
    });
    expect(body).toEqual({
      model: 'claude-sonnet-4-20250514',
      system: 'sys',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4096,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
    });
  });

  it('prefers max_completion_tokens over max_tokens and keeps room for a thinking budget', () => {
    expect(buildAnthropicMessagesBody({ model: 'm', messages: [], max_tokens: 50, max_completion_tokens: 70 }).max_tokens).toBe(70);
    expect(buildAnthropicMessagesBody({ model: 'm', messages: [], max_tokens: 50 }).max_tokens).toBe(50);
    const thinking = buildAnthropicMessagesBody({ model: 'm', messages: [], thinking: { type: 'enabled', budget_tokens: 2000 } });
    expect(thinking.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(thinking.max_tokens).toBe(6096);
  });

  it('maps function tools and every tool_choice form', () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ];
    const base = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }], tools };
    expect(buildAnthropicMessagesBody(base).tools).toEqual([
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ]);
    expect(buildAnthropicMessagesBody(base).tool_choice).toBeUndefined();
    expect(buildAnthropicMessagesBody({ ...base, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(buildAnthropicMessagesBody({ ...base, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(buildAnthropicMessagesBody({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(
      buildAnthropicMessagesBody({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice,
    ).toEqual({ type: 'tool', name: 'get_weather' });
    expect(buildAnthropicMessagesBody({ ...base, parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    const noParams = buildAnthropicMessagesBody({ ...base, tools: [{ type: 'function', function: { name: 'now' } }] });
    expect(noParams.tools).toEqual([{ name: 'now', input_schema: { type: 'object', properties: {} } }]);
  });

  it('sets stream only when asked and omits model when absent', () => {
    expect(buildAnthropicMessagesBody({ model: 'm', messages: [], stream: true }).stream).toBe(true);
    const body = buildAnthropicMessagesBody({ messages: [] });
    expect('model' in body).toBe(false);
    expect('stream' in body).toBe(false);
  });
});

describe('mapAnthropicResponse', () => {
  it('maps a text answer with cache usage (prompt total includes cache reads and writes)', () => {
    const out = mapAnthropicResponse(fixture('message-text.json'), 'requested-model');
    expect(out).toMatchObject({
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      object: 'chat.completion',
      model: 'claude-sonnet-4-20250514',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi! My name is Claude.' }, finish_reason: 'stop', logprobs: null }],
      usage: {
        prompt_tokens: 2095 + 2051 + 2051,
        completion_tokens: 503,
        total_tokens: 2095 + 2051 + 2051 + 503,
        prompt_tokens_details: { cached_tokens: 2051, cache_creation_tokens: 2051 },
      },
    });
    expect(out.created).toBeGreaterThan(1_700_000_000);
    expect(out.choices[0]!.message.tool_calls).toBeUndefined();
    expect(out.choices[0]!.message.content_blocks).toBeUndefined();
  });

  it('maps tool_use blocks to tool_calls', () => {
    const out = mapAnthropicResponse(fixture('message-tool-use.json'), 'm');
    expect(out.choices[0]!.finish_reason).toBe('tool_calls');
    expect(out.choices[0]!.message.content).toBe("I'll check the current weather in San Francisco for you.");
    expect(out.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      },
    ]);
    expect(out.usage).toMatchObject({
      prompt_tokens: 472,
      completion_tokens: 89,
      total_tokens: 561,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('maps thinking to reasoning_content and signed content_blocks', () => {
    const out = mapAnthropicResponse(fixture('message-thinking.json'), 'm');
    const msg = out.choices[0]!.message;
    expect(msg.content).toBe('Based on my analysis...');
    expect(msg.reasoning_content).toBe('Let me analyze this step by step...');
    expect(msg.content_blocks).toEqual([
      {
        type: 'thinking',
        thinking: 'Let me analyze this step by step...',
        signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....',
      },
      { type: 'text', text: 'Based on my analysis...' },
    ]);
  });

  it('rejects a body that is not a message', () => {
    expect(() => mapAnthropicResponse({ hello: 1 }, 'm')).toThrow(/unexpected body/);
  });
});

describe('mapAnthropicFinishReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, null],
  ])('%s → %s', (input, expected) => {
    expect(mapAnthropicFinishReason(input)).toBe(expected);
  });
});
