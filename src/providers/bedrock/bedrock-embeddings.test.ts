import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { startFakeBedrock, type FakeBedrock } from '../../../test/fakes/bedrock/server.js';
import { bedrockEmbeddings } from './bedrock-embeddings.js';
import { callContext } from './__fixtures__/call-context.js';
import titan from './__fixtures__/titan-embed-response.json' with { type: 'json' };
import cohere from './__fixtures__/cohere-embed-response.json' with { type: 'json' };

describe('bedrock embeddings', () => {
  let fake: FakeBedrock;
  const http = new HttpClient();
  beforeAll(async () => {
    fake = await startFakeBedrock();
  });
  afterAll(async () => {
    await fake.close();
    await http.close();
  });
  beforeEach(() => fake.reset());

  it('builds a Cohere call with the whole batch and maps its answer', async () => {
    const req = { model: 'cohere.embed-english-v3', input: ['hello', 'world'] };
    const ctx = callContext();
    const call = await bedrockEmbeddings.buildRequest(req, ctx);
    expect(call.url).toBe('https://bedrock-runtime.us-east-1.amazonaws.com/model/cohere.embed-english-v3/invoke');
    expect(JSON.parse(call.body as string)).toEqual({ texts: ['hello', 'world'], input_type: 'search_document' });
    const out = bedrockEmbeddings.mapResponse(cohere, req, ctx);
    expect(out.data).toEqual([
      { object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] },
      { object: 'embedding', index: 1, embedding: [0.4, 0.5, 0.6] },
    ]);
    expect(out.model).toBe('cohere.embed-english-v3');
  });

  it('maps a single Titan answer with its token count, in base64 when asked', async () => {
    const req = { model: 'amazon.titan-embed-text-v1', input: 'hello', encoding_format: 'base64' as const };
    const ctx = callContext();
    const call = await bedrockEmbeddings.buildRequest(req, ctx);
    expect(JSON.parse(call.body as string)).toEqual({ inputText: 'hello' });
    const out = bedrockEmbeddings.mapResponse(titan, req, ctx);
    expect(out.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    const buf = Buffer.from(out.data[0]!.embedding as string, 'base64');
    const decoded = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4));
    expect(decoded.map((x) => Math.round(x * 1000) / 1000)).toEqual([0.123, -0.456, 0.789, 0.001]);
  });

  it('sends Titan batches as one call per input (earlier ones as side calls) and keeps the order', async () => {
    const req = { model: 'amazon.titan-embed-text-v2:0', input: ['one', 'two', 'three'], dimensions: 256 };
    const ctx = callContext({ customHost: fake.url, http });
    const call = await bedrockEmbeddings.buildRequest(req, ctx);
    expect(fake.requests.map((r) => JSON.parse(r.rawBody.toString()).inputText).sort()).toEqual(['one', 'two']);
    expect(JSON.parse(call.body as string)).toEqual({ inputText: 'three', dimensions: 256 });
    const res = await http.sendText({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    expect(res.status).toBe(200);
    const out = bedrockEmbeddings.mapResponse(JSON.parse(res.text), req, ctx);
    expect(out.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(out.data.every((d) => (d.embedding as number[]).length === 256)).toBe(true);
    const single = await bedrockEmbeddings.buildRequest({ ...req, input: 'one' }, callContext({ customHost: fake.url, http }));
    const first = JSON.parse(
      (await http.sendText({ url: single.url, method: 'POST', headers: single.headers, body: single.body as string })).text,
    );
    expect(out.data[0]!.embedding).toEqual(first.embedding);
    expect(out.usage.prompt_tokens).toBe(1 + 1 + 2);
  });

  it('refuses other model families and token inputs', async () => {
    await expect(
      bedrockEmbeddings.buildRequest({ model: 'meta.llama3-8b-instruct-v1:0', input: 'x' }, callContext()),
    ).rejects.toMatchObject({ status: 400, param: 'model' });
    await expect(
      bedrockEmbeddings.buildRequest({ model: 'amazon.titan-embed-text-v1', input: [1, 2, 3] }, callContext()),
    ).rejects.toMatchObject({ status: 400, param: 'input' });
  });

  it('surfaces a failed side call as the mapped Bedrock error', async () => {
    const { bedrockFault } = await import('../../../test/fakes/bedrock/server.js');
    fake.fail(bedrockFault(429, 'ThrottlingException', 'slow down'));
    const req = { model: 'amazon.titan-embed-text-v1', input: ['a', 'b'] };
    await expect(bedrockEmbeddings.buildRequest(req, callContext({ customHost: fake.url, http }))).rejects.toMatchObject({
      status: 429,
      publicCode: 'ThrottlingException',
      message: 'slow down',
    });
  });
});
