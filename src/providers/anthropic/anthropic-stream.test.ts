import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { ChatCompletionChunk } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { createAnthropicStreamMapper } from './anthropic-stream.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url));

/** Feeds the bytes in pieces of `size` and collects every chunk, end() included. */
function run(bytes: Buffer, size: number): ChatCompletionChunk[] {
  const mapper = createAnthropicStreamMapper('anthropic', 'requested-model');
  const out: ChatCompletionChunk[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...mapper.push(bytes.subarray(i, i + size)));
  out.push(...mapper.end());
  return out;
}

describe('createAnthropicStreamMapper', () => {
  it.each([1, 7, 100000])('maps a text stream split every %i bytes', (size) => {
    const chunks = run(fixture('stream-text.sse'), size);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY']));
    expect(new Set(chunks.map((c) => c.created)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'claude-sonnet-4-20250514')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hello' },
      { content: '!' },
      {},
      undefined,
    ]);
    expect(chunks[3]!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[4]).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 35,
        completion_tokens: 15,
        total_tokens: 50,
        prompt_tokens_details: { cached_tokens: 10, cache_creation_tokens: 0 },
      },
    });
  });

  it('numbers tool calls from 0 whatever their block index and streams argument pieces', () => {
    const chunks = run(fixture('stream-tool-use.sse'), 13);
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas).toEqual([
      { index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"location":' } },
      { index: 0, function: { arguments: ' "San Francisco, CA"}' } },
    ]);
    const args = toolDeltas.map((d) => d.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ location: 'San Francisco, CA' });
    expect(chunks.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(["Okay, let's check the weather."]);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks[chunks.length - 1]!.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it('maps thinking deltas to reasoning_content and drops the signature delta', () => {
    const chunks = run(fixture('stream-thinking.sse'), 50);
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content).filter(Boolean)).toEqual(['Let me solve this step by step.']);
    expect(chunks.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(['27 * 453 = 12,231']);
    expect(JSON.stringify(chunks)).not.toContain('EqQBCgIYAhIM');
  });

  it('throws a provider error with the mapped status on an error event', () => {
    const mapper = createAnthropicStreamMapper('anthropic', 'm');
    const bytes = fixture('stream-error.sse');
    const err = (() => {
      try {
        mapper.push(bytes);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({
      code: 'provider_error',
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
      provider: 'anthropic',
    });
  });

  it('throws 502 when the stream ends without message_stop, after yielding what came', () => {
    const text = fixture('stream-text.sse').toString('utf8');
    const cut = Buffer.from(text.slice(0, text.indexOf('event: message_delta')));
    const mapper = createAnthropicStreamMapper('anthropic', 'm');
    expect(mapper.push(cut).map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hello', '!']);
    expect(() => mapper.end()).toThrow(
      expect.objectContaining({ status: 502, code: 'provider_error', message: expect.stringContaining('ended early') }),
    );
  });
});
