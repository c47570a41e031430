import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { PNG_1X1 as PNG, collectChatStream, useProviderSuite, readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeCohere } from '../../fakes/cohere/server.js';

const MODEL = 'command-a-03-2025';
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
type ApiError = InstanceType<typeof OpenAI.APIError>;

describe('cohere through the gateway (openai SDK → gateway → Cohere v2 fake)', () => {
  const suite = useProviderSuite(
    () => startFakeCohere({ apiKey: 'co-key' }),
    (fake) => ({ provider: 'cohere', api_key: 'co-key', custom_host: fake.url }),
  );
  const { client } = suite;

  it('completes a chat with a system prompt, mapping the answer and usage', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      max_tokens: 100,
      temperature: 0.2,
      top_p: 0.8,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello cohere' },
      ],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe(MODEL);
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'echo: hello cohere [system: You are terse.]' });
    expect(res.choices[0]!.finish_reason).toBe('stop');
    // fake: tokens.input_tokens = billed input ('You are terse.' 4 + 'hello cohere' 3) + 60
    expect(res.usage!.prompt_tokens).toBe(4 + 3 + 60);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const seen = suite.fake.lastRequest!;
    expect(seen.path).toBe('/v2/chat');
    expect(seen.headers.authorization).toBe('Bearer co-key');
    expect(seen.body).toMatchObject({
      model: MODEL,
      max_tokens: 100,
      temperature: 0.2,
      p: 0.8,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello cohere' },
      ],
    });
  });

  it('streams a chat with a system prompt, one id for all chunks, and a usage chunk', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'stream these words' },
      ],
    });
    const { text, finish, usage, ids } = await collectChatStream(stream);
    expect(text).toBe('echo: stream these words [system: Be brief.]');
    expect(finish).toBe('stop');
    expect(ids.size).toBe(1);
    expect(usage!.prompt_tokens).toBeGreaterThan(60);
    expect(suite.fake.lastRequest!.body.stream).toBe(true);
  });

  it('maps max_tokens truncation to finish_reason length', async () => {
    const res = await client().chat.completions.create({
      model: MODEL,
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(res.choices[0]!.finish_reason).toBe('length');
    expect(res.choices[0]!.message.content).toBe('echo: one ');
  });

  it('sends image parts as v2 image_url content', async () => {
    const res = await client().chat.completions.create({
      model: 'command-a-vision-07-2025',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what is this [images: 1]');
    expect(suite.fake.lastRequest!.body.messages[0].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' },
    });
  });

  it('runs a tool call round trip (non-streamed call, then the tool result)', async () => {
    const c = client();
    const first = await c.chat.completions.create({ model: MODEL, tools: TOOLS, messages: [{ role: 'user', content: 'weather in Oslo' }] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'weather in Oslo' });
    expect(suite.fake.lastRequest!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: TOOLS[0]!.type === 'function' ? TOOLS[0]!.function.parameters : {},
        },
      },
    ]);
    const second = await c.chat.completions.create({
      model: MODEL,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'rain, 8C' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: rain, 8C');
    const sent = suite.fake.lastRequest!.body.messages;
    expect(sent[1]).toEqual({
      role: 'assistant',
      tool_plan: 'I will use the get_weather tool.',
      tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.function.arguments } }],
    });
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: call.id, content: 'rain, 8C' });
  });

  it('streams a tool call as tool_call deltas', async () => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'weather in Rome' }],
    });
    let args = '';
    let name = '';
    let id = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (d.id) id = d.id;
        if (d.function?.name) name = d.function.name;
        args += d.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(id).toMatch(/^get_weather_/);
    expect(JSON.parse(args)).toEqual({ query: 'weather in Rome' });
    expect(finish).toBe('tool_calls');
  });

  it('serves embeddings through v2 embed', async () => {
    const res = await client().embeddings.create({ model: 'embed-v4.0', input: ['alpha', 'beta'] });
    expect(res.object).toBe('list');
    expect(res.data.map((d) => d.index)).toEqual([0, 1]);
    expect(res.data[0]!.embedding).toHaveLength(8);
    expect(res.usage.prompt_tokens).toBe(3);
    expect(suite.fake.lastRequest!.path).toBe('/v2/embed');
    expect(suite.fake.lastRequest!.body).toEqual({
      model: 'embed-v4.0',
      texts: ['alpha', 'beta'],
      input_type: 'search_document',
      embedding_types: ['float'],
    });
  });

  it("keeps Cohere's 401 for a wrong key", async () => {
    const err = (await client({ api_key: 'wrong' })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/invalid api token/);
  });

  it('keeps the status of 400, 429 and 500 answers', async () => {
    const c = client();
    const req = { model: MODEL, messages: [{ role: 'user' as const, content: 'x' }] };
    suite.fake.fail({ status: 400, body: { id: 'e1', message: 'invalid request: temperature must be between 0 and 1' } });
    const invalid = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(invalid.status).toBe(400);
    expect(invalid.message).toMatch(/temperature must be between/);
    suite.fake.fail({
      status: 429,
      body: { id: 'e2', message: 'You are using a Trial key, which is limited to 10 API calls / minute.' },
      headers: { 'retry-after': '5' },
    });
    const limited = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/Trial key/);
    suite.fake.fail({ status: 500, body: { id: 'e3', message: 'internal server error, this has been reported to our developers' } });
    const failed = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(failed.status).toBe(500);
    expect(failed.message).toMatch(/internal server error/);
  });

  it('ends a stream that Cohere fails (message-end ERROR) with an error frame', async () => {
    suite.fake.failNextStream('internal error while generating');
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/internal error while generating/);
    expect(text).toBe('echo: ');
  });

  it('ends a stream the provider cut off with an error frame', async () => {
    // Frames spaced out so the cut happens after the gateway has started answering (not in the same tick as the writes).
    suite.fake.options.frameDelayMs = 10;
    suite.fake.fail({ dieAfterChunks: 3 });
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('echo: ');
  });
});
