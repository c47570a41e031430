import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeGoogle, type FakeGoogle } from '../../fakes/google/server.js';
import { googleErrorBody } from '../../fakes/google/gemini-reply.js';

const KEY = 'AIza-e2e-key';
let gw: Awaited<ReturnType<typeof startGateway>>;
let fake: FakeGoogle;

beforeAll(async () => {
  fake = await startFakeGoogle({ apiKey: KEY, cachedTokens: 2 });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  delete fake.options.streamErrorAfter;
  delete fake.options.frameDelayMs;
});

function client(config: Record<string, unknown> = {}): OpenAI {
  return gw
    .openai({ 'x-gateway-config': JSON.stringify({ provider: 'google', api_key: KEY, custom_host: fake.url, ...config }) })
    .withOptions({ maxRetries: 0 });
}

const MODEL = 'gemini-2.5-flash';
const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: { type: 'object', additionalProperties: false, properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

describe('google through the gateway', () => {
  it('answers a chat with a system prompt, with usage', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello gemini' },
      ],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'echo: hello gemini' });
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    expect(res.usage!.prompt_tokens_details?.cached_tokens).toBe(2);
    const upstream = fake.lastRequest!;
    expect(upstream.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(upstream.headers['x-goog-api-key']).toBe(KEY);
    expect(upstream.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
  });

  it('streams a chat with a system prompt and a final usage chunk', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'one two three' },
      ],
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: one two three');
    expect(finish).toBe('stop');
    expect(usage!.total_tokens).toBeGreaterThan(0);
    expect(fake.lastRequest!.query.get('alt')).toBe('sse');
  });

  it('passes an image part as inlineData / fileData', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what are these' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } },
            { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg' } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what are these [images: 2]');
    expect(fake.lastRequest!.body.contents[0].parts.slice(1)).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' } },
      { fileData: { fileUri: 'https://example.com/dog.jpg', mimeType: 'image/jpeg' } },
    ]);
  });

  it('round-trips a tool call', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Paris' }];
    const first = await client().chat.completions.create({ model: MODEL, messages, tools });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"query":"weather in Paris"}' });
    const second = await client().chat.completions.create({
      model: MODEL,
      tools,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' }],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: {"temp_c":21}');
    expect(fake.lastRequest!.body.contents[2].parts[0]).toEqual({ functionResponse: { name: 'get_weather', response: { temp_c: 21 } } });
  });

  it('streams a tool call', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      tools,
      messages: [{ role: 'user', content: 'Rome?' }],
    });
    let args = '';
    let name = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        name ||= tc.function?.name ?? '';
        args += tc.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect([name, args, finish]).toEqual(['get_weather', '{"query":"Rome?"}', 'tool_calls']);
  });

  it('embeds one text and a batch', async () => {
    const one = await client().embeddings.create({ model: 'gemini-embedding-001', input: 'hello' });
    expect(one.data).toHaveLength(1);
    expect(one.data[0]!.embedding).toHaveLength(8);
    expect(fake.lastRequest!.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    const many = await client().embeddings.create({ model: 'gemini-embedding-001', input: ['a', 'b', 'c'], encoding_format: 'float' });
    expect(many.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(fake.lastRequest!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('keeps Google’s status on an auth failure', async () => {
    const err = await client({ api_key: 'AIza-wrong' })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toContain('API key not valid');
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('INVALID_ARGUMENT');
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'],
    [429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
    [500, 'INTERNAL', 'An internal error has occurred.'],
  ])('maps a provider %i with its status kept', async (status, code, message) => {
    fake.fail({ status, body: googleErrorBody(status, code, message) });
    const err = (await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
  });

  it('ends a stream in an error frame when Google sends an error mid-stream', async () => {
    fake.options.streamErrorAfter = 2;
    fake.options.frameDelayMs = 10;
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toContain('internal error');
    expect(text).toBe('echo: one ');
  });

  it('ends a stream in an error frame when Google drops the connection', async () => {
    fake.fail({ dieAfterChunks: 2 });
    fake.options.frameDelayMs = 10;
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('echo: one ');
  });
});
