import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const viaHeaders = () => ({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.url });

describe('chat completions through openai with the openai SDK', () => {
  it('answers a non-streamed chat with a system prompt and usage, bytes passed through', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const res = await client.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello world' },
        ],
      })
      .withResponse();
    expect(res.data.choices[0]!.message.content).toBe('echo: hello world');
    expect(res.data.usage?.total_tokens).toBeGreaterThan(0);
    expect(res.response.headers.get('x-gateway-provider')).toBe('openai');
    expect(res.response.headers.get('x-gateway-request-id')).toBeTruthy();
    expect(res.response.headers.get('x-gateway-trace-id')).toBeTruthy();
    expect(fake.lastRequest!.body.messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer sk-good');
  });

  it('streams chunks with usage when asked', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'one two three' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: one two three');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('passes an image part and returns a tool call, then a tool result round trip', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { query: { type: 'string' } } } } },
    ];
    const first = await client.chat.completions.create({
      model: 'gpt-4o',
      tools,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ query: 'what is this' });
    expect(fake.lastRequest!.body.messages[0].content[1].image_url.url).toContain('data:image/png');
    const second = await client.chat.completions.create({
      model: 'gpt-4o',
      tools,
      tool_choice: 'none',
      messages: [
        { role: 'user', content: 'what is this' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'a cat' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: a cat');
  });

  it('streams a tool call with argument deltas', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const runner = client.chat.completions.stream({
      model: 'gpt-4o',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      messages: [{ role: 'user', content: 'x y' }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('lookup');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ query: 'x y' });
  });

  it('serves embeddings and legacy completions', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const emb = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(emb.data).toHaveLength(2);
    expect(emb.data[0]!.embedding).toHaveLength(8);
    const cmp = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'say hi' });
    expect(cmp.choices[0]!.text).toBe(' echo: say hi');
    const stream = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'a b', stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.text ?? '';
    expect(text).toBe(' echo: a b');
  });

  it('lists models of the provider the headers name', async () => {
    const res = await gw.fetch('/v1/models', { headers: { ...viaHeaders(), authorization: 'Bearer sk-good' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.total_count).toBe(3);
    const filtered = (await (
      await gw.fetch('/v1/models?search=mini', { headers: { ...viaHeaders(), authorization: 'Bearer sk-good' } })
    ).json()) as any;
    expect(filtered.data.map((m: { id: string }) => m.id)).toEqual(['gpt-4o-mini']);
    expect(filtered.total_count).toBe(1);
  });

  it('reads one model by id (GET /v1/models/{id}); an unknown id is 404', async () => {
    const headers = { ...viaHeaders(), authorization: 'Bearer sk-good' };
    const one = await gw.fetch('/v1/models/gpt-4o-mini', { headers });
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id: 'gpt-4o-mini', object: 'model' });
    const missing = await gw.fetch('/v1/models/no-such-model', { headers });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe('bad inputs get the decisions.md error shape', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    gw.fetch('/v1/chat/completions', { method: 'POST', body, headers: { ...viaHeaders(), authorization: 'Bearer sk-good', ...headers } });

  it('malformed JSON → 400 invalid_request', async () => {
    const res = await post('{"messages": [');
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    expect(body.error).toHaveProperty('param');
  });

  it('missing messages → 400 naming the field', async () => {
    const res = await post('{"model":"gpt-4o"}');
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain('messages');
  });

  it('a message whose role is not a string → 400 naming the message (a new role string passes through)', async () => {
    const res = await post('{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":5,"content":"z"}]}');
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: { param: string; message: string } }).error;
    expect(error.param).toBe('body.messages.2.role');
    expect(error.message).toContain('string');
  });

  it('a content part that is not an object → 400 naming that part; a content of the wrong type names the types', async () => {
    const part = await post('{"messages":[{"role":"user","content":[{"type":"text","text":"x"},5]}]}');
    expect(part.status).toBe(400);
    expect(((await part.json()) as { error: { param: string; message: string } }).error).toMatchObject({
      param: 'body.messages.0.content.1',
      message: 'body.messages.0.content.1: must be object',
    });
    const wrong = await post('{"messages":[{"role":"assistant","content":null},{"role":"user","content":7}]}');
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { param: string; message: string } }).error).toMatchObject({
      param: 'body.messages.1.content',
      message: 'body.messages.1.content: must be string,array,null',
    });
  });

  it('unknown provider → 400', async () => {
    const res = await post('{"messages":[{"role":"user","content":"x"}]}', { 'x-gateway-provider': 'nope' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain("Unknown provider 'nope'");
  });

  it('no provider at all → 400', async () => {
    const res = await gw.fetch('/v1/chat/completions', { method: 'POST', body: '{"messages":[{"role":"user","content":"x"}]}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.param).toBe('provider');
  });

  it('missing provider credentials → 400', async () => {
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      body: '{"messages":[{"role":"user","content":"x"}]}',
      headers: viaHeaders(),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain('needs an API key');
  });

  it('unknown or missing gateway key → 401', async () => {
    const res = await post('{"messages":[{"role":"user","content":"x"}]}', { 'x-gateway-api-key': 'nope' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('invalid_api_key');
    const res2 = await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res2.status).toBe(401);
  });

  it('provider 4xx and 5xx pass through with status kept, body mapped', async () => {
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-bad' });
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    // The provider's 401 is told apart from the gateway's own: its code and a message naming the provider.
    expect(err.error).toMatchObject({ code: 'provider_authentication_error', provider: 'openai' });
    expect(err.error.message).toMatch(/^openai: /);
    fake.fail({ status: 503, body: { error: { message: 'overloaded', type: 'server_error', code: null } } });
    const err2 = await gw
      .openai(viaHeaders(), { apiKey: 'sk-good' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(err2.status).toBe(503);
    expect(err2.error.message).toBe('overloaded');
  });

  it('upstream connection refused → 502 provider_unreachable', async () => {
    const res = await post('{"messages":[{"role":"user","content":"x"}]}', { 'x-gateway-custom-host': 'http://127.0.0.1:1/v1' });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error.code).toBe('provider_unreachable');
  });

  it('upstream dying mid-stream ends in an error frame, not a clean end', async () => {
    fake.fail({ dieAfterChunks: 2 });
    const client = gw.openai(viaHeaders(), { apiKey: 'sk-good' });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'a b c d e' }],
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) got.push(c.choices[0]?.delta.content ?? '');
    })().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).toMatch(/stream/i);
    expect(got.length).toBeGreaterThan(0);
  });

  it('unknown route → 404 in the error shape; body too large → 413', async () => {
    const res = await gw.fetch('/v1/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('not_found');
    const big = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(26 * 1024 * 1024) }] });
    const res2 = await post(big);
    expect(res2.status).toBe(413);
    expect(((await res2.json()) as any).error.code).toBe('payload_too_large');
  });

  it('unsupported content type → 415', async () => {
    const res = await gw.fetch('/v1/chat/completions', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.code).toBe('unsupported_media_type');
  });

  it('strips x-forwarded-* and never forwards gateway headers', async () => {
    const client = gw.openai(
      {
        ...viaHeaders(),
        'x-forwarded-for': '1.2.3.4',
        'x-gateway-forward-headers': 'x-custom,x-gateway-api-key,x-forwarded-for',
        'x-custom': 'yes',
      },
      { apiKey: 'sk-good' },
    );
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    const h = fake.lastRequest!.headers;
    expect(h['x-custom']).toBe('yes');
    expect(h['x-forwarded-for']).toBeUndefined();
    expect(h['x-gateway-api-key']).toBeUndefined();
  });

  it('refuses a custom host on a private address that is not trusted', async () => {
    const res = await post('{"messages":[{"role":"user","content":"x"}]}', { 'x-gateway-custom-host': 'http://10.1.2.3/v1' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain('private address');
  });
});
