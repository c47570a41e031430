import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('convertToBedrockMessages', () => {
  it('moves system and developer turns to system blocks', () => {
    const out = convertToBedrockMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: [{ type: 'text', text: 'Use English.' }] },
      { role: 'user', content: 'hi' },
    ]);
    expect(out.system).toEqual([{ text: 'Be brief.' }, { text: 'Use English.' }]);
    expect(out.messages).toEqual([{ role: 'user', content: [{ text: 'hi' }] }]);
  });

  it('maps data: image parts to image blocks with their format', () => {
    const out = convertToBedrockMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
    expect(out.messages[0]!.content).toEqual([{ text: 'what is this?' }, { image: { format: 'png', source: { bytes: PNG } } }]);
  });

  it('refuses http image URLs with a 400 naming the part', () => {
    let err: unknown;
    try {
      convertToBedrockMessages([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
    expect((err as GatewayError).param).toBe('messages[0].content[0].image_url.url');
    expect((err as GatewayError).message).toMatch(/data: URLs/);
  });

  it('maps a tool round trip and merges consecutive tool results into one user turn', () => {
    const out = convertToBedrockMessages([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Bergen"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'rain' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(out.messages).toEqual([
      { role: 'user', content: [{ text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Oslo' } } },
          { toolUse: { toolUseId: 'call_2', name: 'weather', input: { city: 'Bergen' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } },
          { toolResult: { toolUseId: 'call_2', content: [{ text: 'rain' }] } },
          { text: 'thanks' },
        ],
      },
    ]);
  });

  it('sends back thinking blocks with their signature', () => {
    const out = convertToBedrockMessages([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        content_blocks: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig1' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'user', content: 'next' },
    ]);
    expect(out.messages[1]!.content).toEqual([{ reasoningContent: { reasoningText: { text: 'hmm', signature: 'sig1' } } }, { text: 'a' }]);
  });

  it('rejects unsupported part types', () => {
    expect(() => convertToBedrockMessages([{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }])).toThrow(
      /not supported/,
    );
  });
});
