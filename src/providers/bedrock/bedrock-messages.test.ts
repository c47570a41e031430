import { beforeAll, describe, expect, it } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { MessagesRequest } from '../../foundation/spec/messages.js';
import { bedrockMessagesEndpoint } from './bedrock-messages.js';
import { loadBedrockSdk } from './bedrock-sdk.js';
import { callContext } from './__fixtures__/call-context.js';
import events from './__fixtures__/invoke-stream-events.json' with { type: 'json' };

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const s = (value: string) => ({ type: 'string' as const, value });

/** An InvokeModelWithResponseStream `chunk` frame around one event's exact JSON text. */
function chunk(json: string): Uint8Array {
  const payload = JSON.stringify({ bytes: Buffer.from(json, 'utf8').toString('base64'), p: 'abcd' });
  return codec.encode({
    headers: { ':event-type': s('chunk'), ':content-type': s('application/json'), ':message-type': s('event') },
    body: fromUtf8(payload),
  });
}

function exception(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': s(type), ':content-type': s('application/json'), ':message-type': s('exception') },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const req: MessagesRequest = { model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] };

/** Feeds `bytes` in pieces of `split` bytes; returns the output text and the error `end()` threw, if any. */
function transcode(bytes: Uint8Array, split: number): { text: string; error?: GatewayError } {
  const t = bedrockMessagesEndpoint.createStreamTranscoder!(req, callContext({ stream: true }));
  const out: Uint8Array[] = [];
  try {
    for (let i = 0; i < bytes.length; i += split) out.push(...t.push(bytes.subarray(i, i + split)));
    out.push(...t.end());
  } catch (err) {
    return { text: Buffer.concat(out).toString('utf8'), error: err as GatewayError };
  }
  return { text: Buffer.concat(out).toString('utf8') };
}

describe('bedrock messages endpoint (InvokeModel with the Anthropic format)', () => {
  beforeAll(() => loadBedrockSdk());

  it('serves Anthropic model ids, inference profiles and ARNs only', () => {
    const serves = bedrockMessagesEndpoint.servesModel!;
    expect(serves(MODEL)).toBe(true);
    expect(serves(`us.${MODEL}`)).toBe(true);
    expect(serves(`arn:aws:bedrock:us-east-1::foundation-model/${MODEL}`)).toBe(true);
    expect(serves('meta.llama3-8b-instruct-v1:0')).toBe(false);
    expect(serves('amazon.nova-pro-v1:0')).toBe(false);
    expect(serves(undefined)).toBe(false);
  });

  it('signs an /invoke call whose body has anthropic_version and anthropic_beta, without model and stream', async () => {
    const ctx = callContext({ forwardHeaders: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a-1,b-2', 'x-team': 'blue' } });
    const call = await bedrockMessagesEndpoint.buildRequest(
      { ...req, stream: false, system: 'terse', anthropic_version: 'bedrock-2099-01-01' } as MessagesRequest,
      ctx,
    );
    expect(call.url).toBe(`https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(MODEL)}/invoke`);
    expect(JSON.parse(String(call.body))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['a-1', 'b-2'],
      max_tokens: 64,
      system: 'terse',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(call.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    expect(call.headers['anthropic-version']).toBeUndefined();
    expect(call.headers['anthropic-beta']).toBeUndefined();
    expect(call.headers['x-team']).toBe('blue');
    const streamed = await bedrockMessagesEndpoint.buildRequest(req, callContext({ stream: true }));
    expect(streamed.url).toMatch(/\/invoke-with-response-stream$/);
    expect(streamed.headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  it('needs a model and credentials (400 naming the field)', async () => {
    await expect(async () => bedrockMessagesEndpoint.buildRequest({ ...req, model: '' }, callContext())).rejects.toMatchObject({
      status: 400,
      param: 'model',
    });
    await expect(async () =>
      bedrockMessagesEndpoint.buildRequest(req, callContext({ config: { provider: 'bedrock', cloud1_access_key_id: 'AKID' } })),
    ).rejects.toMatchObject({
      status: 400,
      param: 'cloud1_secret_access_key',
    });
  });

  it('re-frames each chunk as an SSE event whose data is the chunk bytes unchanged, in any split', () => {
    const body = Buffer.concat(events.map(chunk));
    const expected = events.map((json) => `event: ${JSON.parse(json).type}\ndata: ${json}\n\n`).join('');
    for (const split of [1, 7, 64, body.length]) expect(transcode(body, split)).toEqual({ text: expected });
  });

  it('returns the events before an exception frame, then throws it with its status', () => {
    const { text, error } = transcode(
      Buffer.concat([...events.slice(0, 2).map(chunk), exception('throttlingException', 'Too many requests')]),
      4096,
    );
    expect(text.match(/^event: /gm)).toHaveLength(2);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 429, provider: 'bedrock', publicCode: 'ThrottlingException', message: 'Too many requests' });
  });

  it('puts an event whose JSON spans lines on one data line, and throws an error event', () => {
    const pretty = JSON.stringify({ type: 'ping' }, null, 2);
    expect(
      transcode(Buffer.concat([chunk(pretty), chunk(events.at(-1)!)]), 4096).text.startsWith('event: ping\ndata: {"type":"ping"}\n\n'),
    ).toBe(true);
    const failed = transcode(
      Buffer.concat([
        chunk(events[0]!),
        chunk(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })),
      ]),
      4096,
    );
    expect(failed.text.match(/^event: /gm)).toHaveLength(1);
    expect(failed.error).toMatchObject({ status: 502, message: 'Overloaded', publicCode: 'overloaded_error' });
  });

  it('throws a 502 when the stream ends before message_stop', () => {
    const { error } = transcode(Buffer.concat(events.slice(0, 3).map(chunk)), 4096);
    expect(error).toMatchObject({ status: 502, provider: 'bedrock' });
  });

  it('maps the same stream to event objects for strict mode', () => {
    const mapper = bedrockMessagesEndpoint.createStreamMapper!(req, callContext({ stream: true }));
    const out = [...mapper.push(Buffer.concat(events.map(chunk))), ...mapper.end()];
    expect(out.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});
