import { describe, expect, it } from 'vitest';
import { StreamAnswer, type StreamItem } from './stream-answer.js';
import { streamFramingOf } from './stream-framing.js';
import { GatewayError } from '../errors/gateway-error.js';

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
    const s = new StreamAnswer(items([start], new GatewayError('provider_error', 'overloaded', { status: 529, provider: 'anthropic' })), false, false, streamFramingOf('messages'));
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
    const failed = await collect(new StreamAnswer(items([], new GatewayError('provider_error', 'x', { status: 502 })), false, false, streamFramingOf('chat')));
    expect(failed.startsWith('data: {"error":')).toBe(true);
  });

  it('recognises a complete stream by its tail', () => {
    expect(streamFramingOf('messages').complete('data: {"type":"message_stop"}\n\n')).toBe(true);
    expect(streamFramingOf('messages').complete('{"type":"content_block_stop"}\n\n')).toBe(false);
    expect(streamFramingOf('chat').complete('data: [DONE]\n\n')).toBe(true);
    expect(streamFramingOf('responses').complete('data: {"type":"message_stop"}')).toBe(false);
  });
});
