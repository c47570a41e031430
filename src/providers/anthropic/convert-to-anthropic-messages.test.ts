import { describe, expect, it } from 'vitest';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';

describe('convertToAnthropicMessages', () => {
  it('lifts system and developer messages into system and keeps user text as a string', () => {
    const out = convertToAnthropicMessages([
      { role: 'system', content: 'You are terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
      { role: 'user', content: 'Hello' },
    ]);
    expect(out.system).toBe('You are terse.\nAnswer in French.');
    expect(out.messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('keeps system as blocks when a part carries cache_control', () => {
    const out = convertToAnthropicMessages([
      { role: 'system', content: [{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'q' },
    ]);
    expect(out.system).toEqual([{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }]);
  });

  it('maps data: and http(s) image URLs to base64 and url sources', () => {
    const out = convertToAnthropicMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
        ],
      },
    ]);
    expect(out.messages[0]!.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('refuses a data: URL that is not base64', () => {
    expect(() =>
      convertToAnthropicMessages([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,raw' } }] }]),
    ).toThrow(/messages\[0\]\.content\[0\]\.image_url\.url/);
  });

  it('maps tool calls to tool_use and merges consecutive tool results into one user turn', () => {
    const out = convertToAnthropicMessages([
      { role: 'user', content: 'weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'rainy' }] },
      { role: 'user', content: 'thanks' },
    ]);
    expect(out.messages).toEqual([
      { role: 'user', content: 'weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'rainy' }] },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
  });

  it('treats empty arguments as {} and refuses arguments that are not a JSON object', () => {
    const ok = convertToAnthropicMessages([
      { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'now', arguments: '' } }] },
    ]);
    expect(ok.messages[0]!.content).toEqual([{ type: 'tool_use', id: 't', name: 'now', input: {} }]);
    const err = (() => {
      try {
        convertToAnthropicMessages([
          { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'now', arguments: '[1]' } }] },
        ]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).param).toBe('messages[0].tool_calls[0].function.arguments');
    expect((err as GatewayError).status).toBe(400);
  });

  it('replays signed thinking from content_blocks before the text and drops unsigned reasoning', () => {
    const out = convertToAnthropicMessages([
      { role: 'user', content: 'q1' },
      {
        role: 'assistant',
        content: 'a1',
        reasoning_content: 'I thought',
        content_blocks: [
          { type: 'thinking', thinking: 'I thought', signature: 'sig_abc' },
          { type: 'text', text: 'a1' },
        ],
      },
      { role: 'assistant', content: 'a2', reasoning_content: 'unsigned' },
    ]);
    expect(out.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I thought', signature: 'sig_abc' },
        { type: 'text', text: 'a1' },
        { type: 'text', text: 'a2' },
      ],
    });
  });

  it('refuses a tool message without tool_call_id and the legacy function role', () => {
    expect(() => convertToAnthropicMessages([{ role: 'tool', content: 'x' }])).toThrow(/tool_call_id/);
    expect(() => convertToAnthropicMessages([{ role: 'function', name: 'f', content: 'x' }])).toThrow(/not supported/);
  });
});
