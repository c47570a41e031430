import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { FakeClock } from '../../foundation/lib/clock.js';
import type { CallContext, ProviderTarget, UpstreamCall } from '../provider.js';
import type { ChatCompletionChunk } from '../../foundation/spec/chat.js';
import { cohereProvider } from './cohere-provider.js';
import { mapCohereEmbedResponse, toCohereEmbedRequest } from './cohere-embed.js';
import { mapCohereRerankResponse, toCohereRerankRequest } from './cohere-rerank.js';
import { startFakeCohere, type FakeCohere } from '../../../test/fakes/cohere/server.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
const http = new HttpClient();
function ctx(target: Partial<ProviderTarget> = {}, stream = false): CallContext {
  return {
    target: { provider: 'cohere', apiKey: 'co-key', config: {}, forwardHeaders: {}, ...target },
    stream,
    signal: new AbortController().signal,
    http,
    clock: new FakeClock(),
  };
}

describe('cohere embeddings mapping', () => {
  it('builds a v2 embed body with defaults and options', () => {
    expect(toCohereEmbedRequest({ input: 'hello' })).toEqual({
      model: 'embed-v4.0',
      texts: ['hello'],
      input_type: 'search_document',
      embedding_types: ['float'],
    });
    expect(
      toCohereEmbedRequest({
        model: 'embed-english-v3.0',
        input: ['a', 'b'],
        input_type: 'search_query',
        dimensions: 256,
        truncate: 'END',
      }),
    ).toEqual({
      model: 'embed-english-v3.0',
      texts: ['a', 'b'],
      input_type: 'search_query',
      embedding_types: ['float'],
      output_dimension: 256,
      truncate: 'END',
    });
    expect(() => toCohereEmbedRequest({ input: [[1, 2]] })).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'input[0]' }),
    );
  });

  it('maps the answer to the common list, with base64 on request', () => {
    const out = mapCohereEmbedResponse(fixture('cohere-embed.json'), { model: 'embed-v4.0', input: ['hello', 'goodbye'] });
    expect(out).toMatchObject({ object: 'list', model: 'embed-v4.0', usage: { prompt_tokens: 2, total_tokens: 2 } });
    expect(out.data.map((d) => d.index)).toEqual([0, 1]);
    expect(out.data[0]!.embedding).toEqual([0.016296387, -0.008354187, -0.04699707, -0.07104492]);
    const b64 = mapCohereEmbedResponse(fixture('cohere-embed.json'), { input: 'x', encoding_format: 'base64' });
    const decoded = new Float32Array(new Uint8Array(Buffer.from(b64.data[1]!.embedding as string, 'base64')).buffer);
    expect(decoded[2]).toBeCloseTo(-0.062408447, 6);
  });
});

describe('cohere rerank helpers', () => {
  it('builds the body and maps results', () => {
    expect(toCohereRerankRequest({ model: 'rerank-v3.5', query: 'q', documents: ['a', { text: 'b' }], top_n: 1 })).toEqual({
      model: 'rerank-v3.5',
      query: 'q',
      documents: ['a', 'b'],
      top_n: 1,
    });
    expect(mapCohereRerankResponse(fixture('cohere-rerank.json'))).toEqual({
      id: '07734bd2-2473-4f07-94e1-0d9f0e6843cf',
      results: [
        { index: 3, relevance_score: 0.999071 },
        { index: 4, relevance_score: 0.7867867 },
      ],
      search_units: 1,
    });
  });
});

describe('cohere adapter against the fake', () => {
  let fake: FakeCohere;
  beforeAll(async () => {
    fake = await startFakeCohere({ apiKey: 'co-key' });
  });
  afterAll(() => fake.close());

  const send = (call: UpstreamCall) => http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
  const target = () => ({ customHost: fake.url });

  it('chat JSON round trip including a tool call and its result', async () => {
    const chat = cohereProvider.endpoints.chat!;
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const first = { model: 'command-a-03-2025', messages: [{ role: 'user' as const, content: 'cats' }], tools };
    const res1 = await send(await chat.buildRequest(first, ctx(target())));
    const out1 = chat.mapResponse(await res1.body.json(), first, ctx());
    const call = out1.choices[0]!.message.tool_calls![0]!;
    expect(out1.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'cats' });
    const second = {
      ...first,
      messages: [...first.messages, out1.choices[0]!.message, { role: 'tool' as const, tool_call_id: call.id, content: 'meow' }],
    };
    const res2 = await send(await chat.buildRequest(second, ctx(target())));
    expect(res2.status).toBe(200);
    const out2 = chat.mapResponse(await res2.body.json(), second, ctx());
    expect(out2.choices[0]!.message.content).toBe('tool said: meow');
    expect(out2.usage!.prompt_tokens).toBeGreaterThan(60);
  });

  it('streams a max_tokens-limited answer', async () => {
    const chat = cohereProvider.endpoints.chat!;
    const req = { model: 'command-a-03-2025', messages: [{ role: 'user' as const, content: 'a b c d e' }], max_tokens: 3 };
    const res = await send(await chat.buildRequest(req, ctx(target(), true)));
    const mapper = chat.createStreamMapper!(req, ctx(target(), true));
    const chunks: ChatCompletionChunk[] = [];
    for await (const part of res.body) chunks.push(...mapper.push(part as Uint8Array));
    chunks.push(...mapper.end());
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: a b ');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length');
  });

  it('embeds through the fake and maps its 401', async () => {
    const emb = cohereProvider.endpoints.embeddings!;
    const req = { model: 'embed-v4.0', input: ['x', 'y'] };
    const res = await send(await emb.buildRequest(req, ctx(target())));
    const out = emb.mapResponse(await res.body.json(), req, ctx());
    expect(out.data).toHaveLength(2);
    expect(fake.lastRequest!.body.input_type).toBe('search_document');
    const bad = await send(await emb.buildRequest(req, ctx({ ...target(), apiKey: 'nope' })));
    const err = cohereProvider.mapError(bad.status, await bad.body.text(), bad.headers);
    expect(err).toMatchObject({ status: 401, message: 'invalid api token', type: 'authentication_error' });
  });

  it('lists models', async () => {
    const models = await cohereProvider.listModels!(ctx(target()));
    expect(models.map((m) => m.id)).toEqual(['command-a-03-2025', 'embed-v4.0']);
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer co-key');
  });
});
