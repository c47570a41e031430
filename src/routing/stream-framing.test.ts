import { describe, expect, it } from 'vitest';
import { StreamAnswer, type StreamItem } from './stream-answer.js';
import { UpstreamStreamError, streamFramingOf } from './stream-framing.js';
import { ByteTail, RawItems } from './stream-sources.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';

async function* items(list: StreamItem[], fail?: GatewayError): AsyncGenerator<StreamItem> {
  for (const i of list) yield i;
  if (fail) throw fail;
}

async function collect(s: StreamAnswer): Promise<string> {
  let out = '';
  for await (const b of s) out += Buffer.from(b).toString();
  return out;
}

const start = { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } } };
const stop = { type: 'message_stop' };

describe('stream framing', () => {
  it('writes Messages events as named events, with no [DONE]', async () => {
    const out = await collect(new StreamAnswer(items([start, stop]), false, false, streamFramingOf('messages')));
    expect(out).toBe(`event: message_start\ndata: ${JSON.stringify(start)}\n\nevent: message_stop\ndata: ${JSON.stringify(stop)}\n\n`);
  });

  it('ends a failing Messages stream with one error event in the Anthropic shape', async () => {
    const ended: Array<[boolean, string | undefined]> = [];
    const s = new StreamAnswer(
      items([start], new GatewayError('provider_error', 'overloaded', { status: 529, provider: 'anthropic' })),
      false,
      false,
      streamFramingOf('messages'),
    );
    s.observe({ onEnd: (ok, err) => ended.push([ok, err?.message]) });
    const frames = (await collect(s)).split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(frames[1]!.startsWith('event: error\ndata: ')).toBe(true);
    const body = JSON.parse(frames[1]!.slice('event: error\ndata: '.length));
    expect(body).toMatchObject({ type: 'error', error: { message: 'overloaded', code: 'provider_error' } });
    expect(ended).toEqual([[false, 'overloaded']]);
  });

  it('adds nothing after a passed-through Messages stream, and keeps the OpenAI framing elsewhere', async () => {
    const raw = Buffer.from(`event: message_stop\ndata: ${JSON.stringify(stop)}\n\n`);
    expect(await collect(new StreamAnswer(items([raw]), false, true, streamFramingOf('messages')))).toBe(raw.toString());
    const failed = await collect(
      new StreamAnswer(items([], new GatewayError('provider_error', 'x', { status: 502 })), false, false, streamFramingOf('chat')),
    );
    expect(failed.startsWith('data: {"error":')).toBe(true);
  });

  it('recognises a complete stream by its tail', () => {
    expect(streamFramingOf('messages').complete('data: {"type":"message_stop"}\n\n')).toBe(true);
    expect(streamFramingOf('messages').complete('{"type":"content_block_stop"}\n\n')).toBe(false);
    expect(streamFramingOf('chat').complete('data: [DONE]\n\n')).toBe(true);
    expect(streamFramingOf('responses').complete('data: {"type":"message_stop"}')).toBe(false);
  });

  it("recognises a passed-through Messages stream that ended on the upstream's error event", () => {
    const error = (type: string, message: string) =>
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
    const messages = streamFramingOf('messages');
    const found = messages.upstreamError(`{"type":"content_block_delta"}\n\n${error('overloaded_error', 'Overloaded')}`);
    expect(found).toBeInstanceOf(UpstreamStreamError);
    expect(found).toMatchObject({
      code: 'provider_error',
      status: 502,
      message: 'The provider ended its stream with an error event (overloaded_error: Overloaded).',
    });
    expect(messages.upstreamError(error('api_error', 'x').replaceAll('\n', '\r\n'))?.message).toContain('api_error: x');
    // The last event is not an error, or its name line is not in the tail, or the name is only like it.
    expect(messages.upstreamError(`${error('api_error', 'x')}event: content_block_delta\ndata: {}\n\n`)).toBeUndefined();
    expect(messages.upstreamError(`data: {"type":"error","error":{}}\n\n`)).toBeUndefined();
    expect(messages.upstreamError(`event: errors\ndata: {}\n\n`)).toBeUndefined();
    expect(messages.upstreamError(`xevent: error\ndata: {}\n\n`)).toBeUndefined();
    expect(messages.upstreamError(`event: error\ndata: not json\n\n`)?.message).toContain('(error: no message)');
    expect(streamFramingOf('chat').upstreamError(error('api_error', 'x'))).toBeUndefined();
  });

  it('passes the upstream error event on once, and reports the stream failed', async () => {
    const frames = [
      `event: message_start\ndata: ${JSON.stringify(start)}\n\n`,
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",',
      '"message":"Busy"}}\n\n',
    ];
    const body = (async function* () {
      for (const f of frames) yield Buffer.from(f);
    })();
    const guard = { signal: { aborted: false, reason: undefined }, provider: 'anthropic' };
    const raw = new RawItems(body, streamFramingOf('messages'), guard);
    const s = new StreamAnswer({ [Symbol.asyncIterator]: () => raw }, false, true, streamFramingOf('messages'));
    const ended: Array<[boolean, string | undefined]> = [];
    s.observe({ onEnd: (ok, err) => ended.push([ok, err?.message]) });
    expect(await collect(s)).toBe(frames.join(''));
    expect(ended).toEqual([[false, 'The provider ended its stream with an error event (overloaded_error: Busy).']]);
  });

  it('keeps the last n bytes of a byte stream across chunks of any size', () => {
    const all = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3);
    for (const n of [1, 5, 32]) {
      for (const size of [1, 3, 7, 40]) {
        const tail = new ByteTail(n);
        expect(tail.text()).toBe('');
        for (let i = 0; i < all.length; i += size) {
          tail.push(Buffer.from(all.slice(i, i + size)));
          expect(tail.text()).toBe(all.slice(0, i + size).slice(-n));
        }
      }
    }
  });
});
