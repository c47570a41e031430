import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { systemClock } from '../../foundation/lib/clock.js';
import type { CallContext, ProviderTarget } from '../provider.js';
import { anthropicProvider } from './anthropic-provider.js';
import { startFakeAnthropic, anthropicErrorBody, type FakeAnthropic } from '../../../test/fakes/anthropic/server.js';

const http = new HttpClient();

function ctx(target: Partial<ProviderTarget>, stream = false): CallContext {
  return {
    target: { provider: 'anthropic', apiKey: 'sk-ant-test', config: {}, forwardHeaders: {}, ...target },
    stream,
    signal: new AbortController().signal,
    http,
    clock: systemClock,
  };
}

const chat = anthropicProvider.endpoints.chat!;

describe('anthropic buildRequest', () => {
  const req: ChatCompletionRequest = { model: 'claude-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }] };

  it('targets the public API with x-api-key and anthropic-version', async () => {
    const call = await chat.buildRequest(req, ctx({ forwardHeaders: { 'x-trace': 't1' } }));
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(call.method).toBe('POST');
    expect(call.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      'x-trace': 't1',
    });
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.parse(String(call.body))).toEqual({
      model: 'claude-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4096,
    });
  });

  it.each(['http://127.0.0.1:9/', 'http://127.0.0.1:9/v1', 'http://127.0.0.1:9/v1/', 'http://127.0.0.1:9'])(
    'accepts custom_host %s',
    async (host) => {
      expect((await chat.buildRequest(req, ctx({ customHost: host }))).url).toBe('http://127.0.0.1:9/v1/messages');
    },
  );

  it('sets stream from the context, and anthropic-beta / version from the config', async () => {
    const call = await chat.buildRequest(req, ctx({ config: { anthropic_beta: ['a-1', 'b-2'], anthropic_version: '2099-01-01' } }, true));
    expect(JSON.parse(String(call.body)).stream).toBe(true);
    expect(call.headers['anthropic-beta']).toBe('a-1,b-2');
    expect(call.headers['anthropic-version']).toBe('2099-01-01');
  });

  it('refuses a missing key or model with a 400 naming the parameter', () => {
    expect(() => chat.buildRequest(req, ctx({ apiKey: undefined }))).toThrow(expect.objectContaining({ status: 400, param: 'api_key' }));
    expect(() => chat.buildRequest({ messages: [] }, ctx({}))).toThrow(expect.objectContaining({ status: 400, param: 'model' }));
  });
});

describe('anthropic adapter against the fake', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-test', cacheUsage: { read: 3, creation: 2 } });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  async function send(req: ChatCompletionRequest, stream = false, target: Partial<ProviderTarget> = {}) {
    const c = ctx({ customHost: fake.url, ...target }, stream);
    const call = await chat.buildRequest(req, c);
    const res = await http.sendText({ url: call.url, method: call.method, headers: call.headers, body: call.body as string }, 'anthropic');
    return { res, c };
  }

  it('round-trips a tool call: tool_use, then the tool result', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'lookup', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
      },
    ];
    const first: ChatCompletionRequest = {
      model: 'claude-x',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'find cats' },
      ],
      tools,
    };
    const { res } = await send(first);
    expect(res.status).toBe(200);
    const out = chat.mapResponse(JSON.parse(res.text), first, ctx({}));
    const call = out.choices[0]!.message.tool_calls![0]!;
    expect(call.function).toEqual({ name: 'lookup', arguments: '{"query":"find cats"}' });
    expect(out.choices[0]!.finish_reason).toBe('tool_calls');
    expect(fake.lastRequest!.body.system).toBe('sys');

    const second: ChatCompletionRequest = {
      ...first,
      messages: [...first.messages, out.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '3 cats' }],
    };
    const again = await send(second);
    expect(again.res.status).toBe(200);
    const answer = chat.mapResponse(JSON.parse(again.res.text), second, ctx({}));
    expect(answer.choices[0]!.message.content).toBe('tool said: 3 cats');
    expect(answer.usage!.prompt_tokens_details).toEqual({ cached_tokens: 3, cache_creation_tokens: 2 });
  });

  it('streams through the mapper with thinking, and replays the signed thinking next turn', async () => {
    const req: ChatCompletionRequest = {
      model: 'claude-x',
      messages: [{ role: 'user', content: 'ponder this' }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    };
    const { res } = await send(req, true);
    const mapper = chat.createStreamMapper!(req, ctx({}));
    const chunks: ChatCompletionChunk[] = [...mapper.push(Buffer.from(res.text)), ...mapper.end()];
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('Thinking about: ponder this');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: ponder this');
    expect(chunks[chunks.length - 1]!.usage!.completion_tokens).toBeGreaterThan(0);

    const plain = await send({ ...req, stream: false });
    const msg = chat.mapResponse(JSON.parse(plain.res.text), req, ctx({})).choices[0]!.message;
    const next = await send({ ...req, messages: [...req.messages, msg, { role: 'user', content: 'and?' }] });
    expect(next.res.status).toBe(200);
    expect(fake.lastRequest!.body.messages[1].content[0]).toMatchObject({ type: 'thinking', thinking: 'Thinking about: ponder this' });
  });

  it('maps the fake error answers keeping their status', async () => {
    fake.fail({
      status: 429,
      body: anthropicErrorBody('rate_limit_error', 'Number of requests has exceeded your rate limit'),
      headers: { 'retry-after': '3' },
    });
    const { res } = await send({ model: 'claude-x', messages: [{ role: 'user', content: 'x' }] });
    const err = anthropicProvider.mapError(res.status, res.text, res.headers);
    expect(err).toMatchObject({
      status: 429,
      type: 'rate_limit_error',
      message: 'Number of requests has exceeded your rate limit',
      headers: { 'retry-after': '3' },
    });
    const bad = await send({ model: 'claude-x', messages: [{ role: 'user', content: 'x' }] }, false, { apiKey: 'wrong' });
    expect(anthropicProvider.mapError(bad.res.status, bad.res.text, bad.res.headers)).toMatchObject({
      status: 401,
      type: 'authentication_error',
    });
  });

  it('lists models', async () => {
    const models = await anthropicProvider.listModels!(ctx({ customHost: fake.url + '/v1' }));
    expect(models.map((m) => m.id)).toEqual(['claude-sonnet-4-20250514', 'claude-3-5-haiku-20241022']);
    expect(models[0]).toMatchObject({ object: 'model', owned_by: 'anthropic', created: Date.parse('2025-05-14T00:00:00Z') / 1000 });
  });
});
