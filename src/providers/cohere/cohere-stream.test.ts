import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { FakeClock } from '../../foundation/lib/clock.js';
import type { CallContext } from '../provider.js';
import type { ChatCompletionChunk } from '../../foundation/spec/chat.js';
import { createCohereStreamMapper } from './cohere-stream.js';

const text = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const ctx: CallContext = {
  target: { provider: 'cohere', apiKey: 'k', config: {}, forwardHeaders: {} },
  stream: true,
  signal: new AbortController().signal,
  http: new HttpClient(),
  clock: new FakeClock(1_700_000_000_000),
};
const req = { model: 'command-a-03-2025', messages: [] };

/** Feeds the body in pieces of `size` bytes and returns every chunk. */
function run(body: string, size: number): ChatCompletionChunk[] {
  const mapper = createCohereStreamMapper(req, ctx);
  const bytes = Buffer.from(body);
  const out: ChatCompletionChunk[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...mapper.push(bytes.subarray(i, i + size)));
  out.push(...mapper.end());
  return out;
}

describe('createCohereStreamMapper', () => {
  it('maps a text stream to role, content, finish and usage chunks, whatever the byte split', () => {
    const whole = run(text('cohere-stream.txt'), 1 << 20);
    for (const size of [1, 7, 64]) expect(run(text('cohere-stream.txt'), size)).toEqual(whole);
    expect(
      whole.every(
        (c) => c.id === 'chatcmpl-29f14a5a-11de-4cae-9800-25e4747408ea' && c.created === 1_700_000_000 && c.model === 'command-a-03-2025',
      ),
    ).toBe(true);
    expect(whole.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(whole[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(whole.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello there!');
    const finish = whole.at(-2)!;
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', logprobs: null });
    expect(whole.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 69, completion_tokens: 3, total_tokens: 72 } });
  });

  it('maps tool plans and two tool calls with argument pieces', () => {
    const chunks = run(text('cohere-tool-stream.txt'), 13);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('I will use the weather tool.');
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual({ index: 0, id: 'weather_e8p4pn45zt0t', type: 'function', function: { name: 'weather', arguments: '' } });
    const args = (i: number) =>
      deltas
        .filter((d) => d.index === i)
        .map((d) => d.function?.arguments ?? '')
        .join('');
    expect(JSON.parse(args(0))).toEqual({ location: 'San Francisco' });
    expect(deltas.find((d) => d.index === 1 && d.id)).toMatchObject({
      id: 'cityAttractions_pyxssbwnq9fq',
      function: { name: 'cityAttractions' },
    });
    expect(JSON.parse(args(1))).toEqual({ city: 'San Francisco' });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 1549,
      completion_tokens: 95,
      total_tokens: 1644,
      prompt_tokens_details: { cached_tokens: 1504 },
    });
  });

  it('maps thinking deltas to reasoning_content', () => {
    const body = [
      'event: message-start\ndata: {"id":"r1","type":"message-start","delta":{"message":{"role":"assistant"}}}\n\n',
      'event: content-start\ndata: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}\n\n',
      'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hmm"}}}}\n\n',
      'event: content-delta\ndata: {"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"4"}}}}\n\n',
      'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"MAX_TOKENS"}}\n\n',
    ].join('');
    const chunks = run(body, 5);
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('hmm');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('4');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length');
  });

  it('throws a provider error on a message-end with ERROR, carrying its message', () => {
    const body = text('cohere-stream.txt').replace('"finish_reason":"COMPLETE"', '"finish_reason":"ERROR","error":"internal server error"');
    expect(() => run(body, 1 << 20)).toThrow(
      expect.objectContaining({ code: 'provider_error', status: 502, message: 'internal server error', provider: 'cohere' }),
    );
    const mapper = createCohereStreamMapper(req, ctx);
    const before = mapper.push(Buffer.from(body));
    expect(before.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello there!');
    expect(() => mapper.end()).toThrow(expect.objectContaining({ message: 'internal server error' }));
  });

  it('throws when the body ends before message-end', () => {
    const cut = text('cohere-stream.txt').split('event: message-end')[0]!;
    const mapper = createCohereStreamMapper(req, ctx);
    expect(mapper.push(Buffer.from(cut)).length).toBeGreaterThan(0);
    expect(() => mapper.end()).toThrow(
      expect.objectContaining({ code: 'provider_error', status: 502, message: expect.stringContaining('stream ended early') }),
    );
  });
});
