import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { ChatCompletionChunk } from '../../foundation/spec/chat.js';
import { createGoogleStreamMapper } from './google-stream.js';

const sse = (name: string): Buffer => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url));

/** Feeds the bytes in pieces of `size` and collects every chunk. */
function run(bytes: Buffer, size = 7): ChatCompletionChunk[] {
  const m = createGoogleStreamMapper('google', 'gemini-2.5-flash', 123);
  const out: ChatCompletionChunk[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...m.push(bytes.subarray(i, i + size)));
  out.push(...m.end());
  return out;
}

describe('google stream mapper', () => {
  it('maps text frames split anywhere, then finish and a usage chunk', () => {
    const chunks = run(sse('stream-text.sse'));
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['chatcmpl-stream-1']));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.created === 123 && c.model === 'gemini-2.5-flash')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('The quick brown fox jumps.');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 6, total_tokens: 14 });
  });

  it('maps thoughts to reasoning_content and a function call to tool_call deltas', () => {
    const chunks = run(sse('stream-function-call.sse'), 50);
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('Thinking about weather tools');
    const tc = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(tc[0]).toMatchObject({
      index: 0,
      id: expect.stringMatching(/^call_/),
      type: 'function',
      function: { name: 'get_current_weather', arguments: '' },
    });
    expect(tc[0]).toHaveProperty('extra_content', { google: { thought_signature: 'sig-abc' } });
    expect(tc[1]).toEqual({ index: 0, function: { arguments: '{"location":"Paris"}' } });
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    expect(chunks[chunks.length - 1]!.usage).toMatchObject({
      prompt_tokens: 40,
      completion_tokens: 22,
      completion_tokens_details: { reasoning_tokens: 12 },
    });
  });

  it('throws on an error frame with the error code as status', () => {
    const m = createGoogleStreamMapper('google', 'g', 1);
    m.push(Buffer.from('data: {"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}]}\n\n'));
    expect(() =>
      m.push(Buffer.from('data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\n\n')),
    ).toThrow(
      expect.objectContaining({ code: 'provider_error', status: 503, message: 'The model is overloaded.', publicCode: 'UNAVAILABLE' }),
    );
  });

  it('returns the chunks before an error frame of the same push, then throws', () => {
    const m = createGoogleStreamMapper('google', 'g', 1);
    const bytes = Buffer.from(
      'data: {"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}]}\n\n' +
        'data: {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}\n\n',
    );
    expect(m.push(bytes).map((c) => c.choices[0]?.delta.content)).toEqual(['', 'a']);
    expect(() => m.end()).toThrow(expect.objectContaining({ status: 500, message: 'Internal error encountered.' }));
  });

  it('throws at end when no finishReason arrived', () => {
    const m = createGoogleStreamMapper('google', 'g', 1);
    m.push(Buffer.from('data: {"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}]}\n\n'));
    expect(() => m.end()).toThrow(expect.objectContaining({ status: 502, message: 'stream ended early' }));
    expect(() => createGoogleStreamMapper('google', 'g', 1).end()).toThrow(/ended early/);
  });

  it('finishes a blocked prompt with content_filter', () => {
    const m = createGoogleStreamMapper('google', 'g', 1);
    const chunks = [
      ...m.push(
        Buffer.from('data: {"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3,"totalTokenCount":3}}\n\n'),
      ),
      ...m.end(),
    ];
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['content_filter']);
    expect(chunks[chunks.length - 1]!.usage?.prompt_tokens).toBe(3);
  });

  it('keeps candidates apart when n > 1', () => {
    const m = createGoogleStreamMapper('google', 'g', 1);
    const frame = (i: number, t: string, fin?: string) => ({
      content: { parts: [{ text: t }], role: 'model' },
      index: i,
      ...(fin ? { finishReason: fin } : {}),
    });
    const chunks = [
      ...m.push(Buffer.from(`data: ${JSON.stringify({ candidates: [frame(0, 'a'), frame(1, 'b')] })}\n\n`)),
      ...m.push(Buffer.from(`data: ${JSON.stringify({ candidates: [frame(0, 'c', 'STOP'), frame(1, 'd', 'MAX_TOKENS')] })}\n\n`)),
      ...m.end(),
    ];
    const text = (i: number) => chunks.map((c) => (c.choices[0]?.index === i ? (c.choices[0].delta.content ?? '') : '')).join('');
    expect([text(0), text(1)]).toEqual(['ac', 'bd']);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => [c.choices[0]!.index, c.choices[0]!.finish_reason])).toEqual([
      [0, 'stop'],
      [1, 'length'],
    ]);
  });
});
