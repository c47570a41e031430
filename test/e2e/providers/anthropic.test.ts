import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeAnthropic, anthropicErrorBody, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const KEY = 'sk-ant-e2e';
const MODEL = 'claude-sonnet-4-20250514';
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Looks a thing up',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

describe('anthropic through the gateway (openai SDK → gateway → Anthropic fake)', () => {
  let fake: FakeAnthropic;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let client: OpenAI;
  const clientWith = (config: Record<string, unknown>): OpenAI =>
    gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: KEY, custom_host: fake.url, ...config }) });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY, cacheUsage: { read: 4, creation: 0 } });
    gw = await startGateway();
    client = clientWith({});
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('answers a chat with a system prompt, mapped from the Messages API, with usage', async () => {
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 64,
      temperature: 0.3,
      stop: ['zzz'],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe(MODEL);
    expect(res.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'echo: hello there' });
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage!.completion_tokens).toBe(5);
    // the fake counts 'You are terse.hello there' as 7 input tokens; cache reads (4) are part of the prompt
    expect(res.usage!.prompt_tokens).toBe(11);
    expect(res.usage!.prompt_tokens_details?.cached_tokens).toBe(4);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + 5);
    const seen = fake.lastRequest!;
    expect(seen.path).toBe('/v1/messages');
    expect(seen.headers['x-api-key']).toBe(KEY);
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen.body).toMatchObject({
      model: MODEL,
      system: 'You are terse.',
      max_tokens: 64,
      temperature: 0.3,
      stop_sequences: ['zzz'],
      messages: [{ role: 'user', content: 'hello there' }],
    });
  });

  it('streams a chat with a system prompt, ending with finish_reason and a usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'one two three' },
      ],
    });
    let text = '';
    const finish: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    const ids = new Set<string>();
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finish.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: one two three');
    expect(finish).toEqual(['stop']);
    expect(ids.size).toBe(1);
    expect(usage).toMatchObject({ completion_tokens: 5 });
    expect(usage!.prompt_tokens).toBeGreaterThan(4);
    expect(fake.lastRequest!.body).toMatchObject({ stream: true, system: 'Be kind.' });
  });

  it('sends image parts as base64 and url sources', async () => {
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: PNG } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what is this [images: 2]');
    const content = fake.lastRequest!.body.messages[0].content;
    expect(content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.split(',')[1] } });
    expect(content[2]).toEqual({ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } });
  });

  it('round-trips a tool call: tool_use out, tool_result back', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'find cats' }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools, tool_choice: 'required' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') return;
    expect(call.function).toEqual({ name: 'lookup', arguments: '{"query":"find cats"}' });
    expect(fake.lastRequest!.body.tool_choice).toEqual({ type: 'any' });
    expect(fake.lastRequest!.body.tools[0]).toMatchObject({ name: 'lookup', input_schema: { type: 'object' } });

    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'three cats' });
    const second = await client.chat.completions.create({ model: MODEL, messages, tools });
    expect(second.choices[0]!.message.content).toBe('tool said: three cats');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(fake.lastRequest!.body.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: call.id, content: 'three cats' }],
    });
  });

  it('streams a tool call as id/name then argument pieces', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'find dogs' }],
      tools,
    });
    let id = '';
    let name = '';
    let args = '';
    let finish = '';
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(tc.index).toBe(0);
        id += tc.id ?? '';
        name += tc.function?.name ?? '';
        args += tc.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(id).toMatch(/^toolu_/);
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ query: 'find dogs' });
    expect(finish).toBe('tool_calls');
  });

  it('passes thinking and returns reasoning_content', async () => {
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'ponder' }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const msg = res.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(msg.reasoning_content).toBe('Thinking about: ponder');
    expect(msg.content).toBe('echo: ponder');
    expect(fake.lastRequest!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(fake.lastRequest!.body.max_tokens).toBeGreaterThan(1024);
  });

  it('maps an auth failure to 401 with the provider message', async () => {
    const err = await clientWith({ api_key: 'wrong-key' })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.error).toMatchObject({
      message: 'anthropic: invalid x-api-key',
      type: 'authentication_error',
      code: 'provider_authentication_error',
    });
  });

  it.each([
    [400, 'invalid_request_error', 'messages: text content blocks must be non-empty'],
    [429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'],
    [500, 'api_error', 'Internal server error'],
    [529, 'overloaded_error', 'Overloaded'],
  ])('keeps the provider status %i and its error type', async (status, type, message) => {
    fake.fail({ status, body: anthropicErrorBody(type, message) });
    const err = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(status);
    expect(err.error).toMatchObject({ message, type });
  });

  it('answers 529 when the error event comes before anything was streamed', async () => {
    fake.failStreamWithErrorEvent({ afterFrames: 1, type: 'overloaded_error', message: 'Overloaded' });
    const err = await client.chat.completions
      .create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'a b' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(529);
    expect(err.error).toMatchObject({ message: 'Overloaded', type: 'overloaded_error' });
  });

  it('ends a stream with an error frame when the provider sends an error event after text', async () => {
    fake.fail({ pauseAfterChunks: { after: 4, ms: 150 } });
    fake.failStreamWithErrorEvent({ afterFrames: 4, type: 'overloaded_error', message: 'Overloaded' });
    const stream = await client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'a b c d e' }] });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(text).toBe('echo: ');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toContain('Overloaded');
  });

  it('ends a stream with an error when the provider connection dies mid-stream', async () => {
    fake.fail({ pauseAfterChunks: { after: 4, ms: 150 }, dieAfterChunks: 5 });
    const stream = await client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'a b c d e' }] });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(text).toBe('echo: a ');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toMatch(/stream/i);
  });
});
