import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { PNG_1X1 as PNG, collectChatStream, readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { FAKE_AWS_CREDENTIALS, bedrockFault, startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock/server.js';

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    },
  },
];

describe('bedrock through the gateway (openai SDK → gateway → Bedrock fake)', () => {
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let fake: FakeBedrock;
  let tokenFake: FakeBedrock;

  beforeAll(async () => {
    fake = await startFakeBedrock({ cacheReadInputTokens: 6 });
    tokenFake = await startFakeBedrock({ credentials: { ...FAKE_AWS_CREDENTIALS, sessionToken: 'session-abc' }, region: 'eu-west-3' });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await tokenFake?.close();
  });
  beforeEach(() => fake.reset());

  function client(overrides: Record<string, unknown> = {}, target: FakeBedrock = fake): OpenAI {
    const config = {
      provider: 'bedrock',
      cloud1_access_key_id: FAKE_AWS_CREDENTIALS.accessKeyId,
      cloud1_secret_access_key: FAKE_AWS_CREDENTIALS.secretAccessKey,
      cloud1_region: 'us-east-1',
      custom_host: target.url,
      ...overrides,
    };
    return gw.openai({ 'x-gateway-config': JSON.stringify(config) }).withOptions({ maxRetries: 0 });
  }

  it('completes a chat with a system prompt, reporting usage with cached tokens', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello bedrock' },
      ],
      max_tokens: 200,
      temperature: 0.1,
    });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe(MODEL);
    expect(res.choices[0]!.message.role).toBe('assistant');
    expect(res.choices[0]!.message.content).toBe('echo: hello bedrock');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    // 'You are terse.' = 4 fake tokens, 'hello bedrock' = 4, plus 6 cache-read tokens.
    expect(res.usage!.prompt_tokens).toBe(4 + 4 + 6);
    expect(res.usage!.prompt_tokens_details?.cached_tokens).toBe(6);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const seen = fake.lastRequest!;
    expect(seen.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(seen.body.system).toEqual([{ text: 'You are terse.' }]);
    expect(seen.body.inferenceConfig).toEqual({ maxTokens: 200, temperature: 0.1 });
    expect(String(seen.headers.authorization)).toMatch(/Credential=AKIDFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  });

  it('streams a chat with a system prompt and a final usage chunk', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'stream these words now' },
      ],
    });
    const { text, finish, usage, ids } = await collectChatStream(stream);
    expect(text).toBe('echo: stream these words now');
    expect(finish).toBe('stop');
    expect(ids.size).toBe(1);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    expect(usage!.prompt_tokens_details?.cached_tokens).toBe(6);
    expect(fake.lastRequest!.path).toMatch(/\/converse-stream$/);
    expect(fake.lastRequest!.body.system).toEqual([{ text: 'You are terse.' }]);
  });

  it('sends an image part as an image block', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what is this [images: 1]');
    expect(fake.lastRequest!.body.messages[0].content[1]).toEqual({ image: { format: 'png', source: { bytes: PNG } } });
  });

  it('refuses an http image URL with a 400 naming the part', async () => {
    const err = await client()
      .chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((err as Error).message).toMatch(/data: URLs/);
    expect(fake.requests).toHaveLength(0);
  });

  it('runs a tool call round trip', async () => {
    const c = client();
    const first = await c.chat.completions.create({ model: MODEL, tools: TOOLS, messages: [{ role: 'user', content: 'weather in Oslo' }] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.type).toBe('function');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'weather in Oslo' });
    expect(fake.lastRequest!.body.toolConfig.tools[0].toolSpec.name).toBe('get_weather');
    const second = await c.chat.completions.create({
      model: MODEL,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny, 21C' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: sunny, 21C');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.usage!.prompt_tokens).toBeGreaterThan(0);
    const turns = fake.lastRequest!.body.messages;
    expect(turns[1].content[0].toolUse).toEqual({ toolUseId: call.id, name: 'get_weather', input: { query: 'weather in Oslo' } });
    expect(turns[2].content[0].toolResult).toEqual({ toolUseId: call.id, content: [{ text: 'sunny, 21C' }] });
  });

  it('streams a tool call as tool_call deltas', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'rain in Bergen?' }],
    });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += tc.function?.name ?? '';
        args += tc.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ query: 'rain in Bergen?' });
    expect(finish).toBe('tool_calls');
  });

  it('embeds with Titan (one call per input) and Cohere (one batch call)', async () => {
    const titan = await client().embeddings.create({
      model: 'amazon.titan-embed-text-v2:0',
      input: ['alpha', 'beta', 'gamma'],
      dimensions: 256,
    });
    expect(titan.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(titan.data.every((d) => d.embedding.length === 256)).toBe(true);
    expect(titan.usage.prompt_tokens).toBe(2 + 1 + 2);
    expect(fake.requests.filter((r) => r.path.endsWith('/invoke'))).toHaveLength(3);
    fake.reset();
    const cohere = await client().embeddings.create({ model: 'cohere.embed-english-v3', input: ['one', 'two'] });
    expect(cohere.data).toHaveLength(2);
    expect(cohere.data[0]!.embedding).toHaveLength(8);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.parse(fake.lastRequest!.rawBody.toString())).toEqual({ texts: ['one', 'two'], input_type: 'search_document' });
  });

  it('signs with a session token and region', async () => {
    const c = client({ cloud1_region: 'eu-west-3', cloud1_session_token: 'session-abc' }, tokenFake);
    const res = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'with token' }] });
    expect(res.choices[0]!.message.content).toBe('echo: with token');
    expect(tokenFake.lastRequest!.headers['x-amz-security-token']).toBe('session-abc');
  });

  it('answers an auth failure with the provider status', async () => {
    const err = await client({ cloud1_secret_access_key: 'not-the-secret' })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('InvalidSignatureException');
    expect((err as Error).message).toMatch(/signature we calculated does not match/);
  });

  it('keeps the status of Bedrock 400, 429 and 500 answers', async () => {
    const c = client();
    const req = { model: MODEL, messages: [{ role: 'user' as const, content: 'x' }] };
    const invalid = await c.chat.completions
      .create({ model: MODEL, messages: [{ role: 'assistant', content: 'starts wrong' }] })
      .catch((e: unknown) => e);
    expect((invalid as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((invalid as InstanceType<typeof OpenAI.APIError>).code).toBe('ValidationException');
    expect((invalid as Error).message).toMatch(/must start with a user message/);
    fake.fail(bedrockFault(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'));
    const throttled = await c.chat.completions.create(req).catch((e: unknown) => e);
    expect((throttled as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((throttled as InstanceType<typeof OpenAI.APIError>).code).toBe('ThrottlingException');
    fake.fail(bedrockFault(500, 'InternalServerException', 'Internal server error'));
    const failed = await c.chat.completions.create(req).catch((e: unknown) => e);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((failed as Error).message).toMatch(/Internal server error/);
  });

  it('ends a stream aborted by an exception event with an error frame', async () => {
    fake.failStream({ afterEvents: 3, exceptionType: 'modelStreamErrorException', message: 'The model stream broke.' });
    // Pause before the exception frame so the gateway has already started its 200 answer.
    fake.fail({ pauseAfterChunks: { after: 3, ms: 150 } });
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/The model stream broke/);
    expect(text).toBe('echo: a ');
  });

  it('answers with the exception status when the stream fails before its first byte', async () => {
    fake.failStream({ afterEvents: 0, exceptionType: 'throttlingException', message: 'Too many tokens, please wait.' });
    const err = await client()
      .chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('ThrottlingException');
  });
});
