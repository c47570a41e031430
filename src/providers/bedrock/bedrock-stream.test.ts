import { beforeAll, describe, expect, it } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { ChatCompletionChunk } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { createBedrockStreamMapper } from './bedrock-stream.js';
import { loadBedrockSdk } from './bedrock-sdk.js';
import { callContext } from './__fixtures__/call-context.js';
import events from './__fixtures__/converse-stream-events.json' with { type: 'json' };

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const s = (value: string) => ({ type: 'string' as const, value });

function frame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ':event-type': s(eventType), ':content-type': s('application/json'), ':message-type': s('event') },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

function exception(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': s(type), ':content-type': s('application/json'), ':message-type': s('exception') },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

const body = concat(events.map((e) => frame(e.event, e.payload)));
const req = { model: 'anthropic.claude-3-7-sonnet', messages: [{ role: 'user' as const, content: 'hi' }] };

function run(bytes: Uint8Array, split: number): ChatCompletionChunk[] {
  const mapper = createBedrockStreamMapper(req, callContext({ stream: true }));
  const out: ChatCompletionChunk[] = [];
  for (let i = 0; i < bytes.length; i += split) out.push(...mapper.push(bytes.subarray(i, i + split)));
  out.push(...mapper.end());
  return out;
}

describe('createBedrockStreamMapper', () => {
  // In the gateway, building the request loads the AWS libraries before a stream is decoded.
  beforeAll(() => loadBedrockSdk());

  it('maps the documented event sequence to common chunks', () => {
    const chunks = run(body, body.length);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === req.model)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta));
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Thinking');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Let me check the charts.');
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'tooluse_Q1', type: 'function', function: { name: 'top_song', arguments: '' } });
    expect(
      calls
        .slice(1)
        .map((c) => c.function?.arguments)
        .join(''),
    ).toBe('{"sign": "WZPZ"}');
    expect(calls.every((c) => c.index === 0)).toBe(true);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish!.choices[0]!.finish_reason).toBe('tool_calls');
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: 385,
      completion_tokens: 64,
      total_tokens: 449,
      prompt_tokens_details: { cached_tokens: 10 },
    });
  });

  it('gives the same chunks whatever the byte split', () => {
    const strip = (cs: ChatCompletionChunk[]) => cs.map((c) => JSON.stringify(c.choices) + JSON.stringify(c.usage ?? null));
    const whole = strip(run(body, body.length));
    for (const split of [1, 3, 7, 64]) expect(strip(run(body, split))).toEqual(whole);
  });

  it('throws the mapped status on an exception event', () => {
    const mapper = createBedrockStreamMapper(req, callContext({ stream: true }));
    const first = mapper.push(frame('messageStart', { role: 'assistant' }));
    expect(first).toHaveLength(1);
    let err: unknown;
    try {
      mapper.push(exception('throttlingException', 'Too many tokens, please wait before trying again.'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(429);
    expect((err as GatewayError).message).toBe('Too many tokens, please wait before trying again.');
    expect((err as GatewayError).publicCode).toBe('ThrottlingException');
    expect((err as GatewayError).provider).toBe('bedrock');
    for (const [type, status] of [
      ['modelStreamErrorException', 424],
      ['validationException', 400],
      ['internalServerException', 500],
      ['serviceUnavailableException', 503],
    ] as const) {
      const m = createBedrockStreamMapper(req, callContext({ stream: true }));
      expect(() => m.push(exception(type, 'x'))).toThrow(expect.objectContaining({ status }));
    }
  });

  it('throws 502 when the body ends before messageStop', () => {
    const mapper = createBedrockStreamMapper(req, callContext({ stream: true }));
    mapper.push(concat(events.slice(0, 5).map((e) => frame(e.event, e.payload))));
    expect(() => mapper.end()).toThrow(expect.objectContaining({ status: 502, message: 'stream ended early' }));
  });

  it('throws 502 on a corrupt frame', () => {
    const bad = frame('messageStart', { role: 'assistant' });
    bad[bad.length - 1] ^= 0xff;
    const mapper = createBedrockStreamMapper(req, callContext({ stream: true }));
    expect(() => mapper.push(bad)).toThrow(expect.objectContaining({ status: 502 }));
  });
});
