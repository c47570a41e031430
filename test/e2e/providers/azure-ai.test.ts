import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { PNG_1X1 as PNG, collectChatStream, useProviderSuite, readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeAzureAI } from '../../fakes/azure-ai/server.js';

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'search', description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
  },
];
type ApiError = InstanceType<typeof OpenAI.APIError>;

describe('azure-ai through the gateway (openai SDK → gateway → Azure AI model inference fake)', () => {
  const suite = useProviderSuite(
    () => startFakeAzureAI({ apiKey: 'ai-key', model: 'Mistral-large-2411' }),
    (fake) => ({
      provider: 'azure-ai',
      api_key: 'ai-key',
      custom_host: fake.url,
      cloud3_deployment_type: 'serverless',
      cloud3_api_version: '2024-05-01-preview',
    }),
  );
  const { client } = suite;

  it('completes a chat with a system prompt, with usage', async () => {
    const res = await client().chat.completions.create({
      model: 'Mistral-large-2411',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello foundry' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: hello foundry [system: You are terse.]');
    expect(res.model).toBe('Mistral-large-2411');
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const seen = suite.fake.lastRequest!;
    expect(seen.path).toBe('/chat/completions');
    expect(seen.query.get('api-version')).toBe('2024-05-01-preview');
    expect(seen.headers.authorization).toBe('Bearer ai-key');
    expect(seen.headers['extra-parameters']).toBe('drop');
  });

  it('streams a chat with a system prompt and a usage chunk', async () => {
    const stream = await client().chat.completions.create({
      model: 'Mistral-large-2411',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'stream these words' },
      ],
    });
    const { text, usage } = await collectChatStream(stream);
    expect(text).toBe('echo: stream these words [system: Be brief.]');
    expect(usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('sends an image part', async () => {
    const res = await client().chat.completions.create({
      model: 'Mistral-large-2411',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'describe' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: describe [images: 1]');
  });

  it('runs a tool call round trip', async () => {
    const c = client();
    const first = await c.chat.completions.create({ model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'find cats' }] });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'find cats' });
    const second = await c.chat.completions.create({
      model: 'm',
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'find cats' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '3 cats' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: 3 cats');
  });

  it('serves embeddings', async () => {
    const res = await client().embeddings.create({ model: 'Cohere-embed-v3-english', input: 'hello' });
    expect(res.data[0]!.embedding).toHaveLength(8);
    expect(suite.fake.lastRequest!.path).toBe('/embeddings');
  });

  it('pins the managed-compute deployment with azureml-model-deployment', async () => {
    await client({
      cloud3_deployment_type: 'managed',
      cloud3_endpoint_name: 'my-ep',
      cloud3_region: 'eastus2',
      cloud3_deployment_name: 'blue',
    }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(suite.fake.lastRequest!.headers['azureml-model-deployment']).toBe('blue');
  });

  it('keeps the 401 for a wrong key', async () => {
    const err = (await client({ api_key: 'wrong' })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(401);
    expect(err.code).toBe('provider_authentication_error');
    expect(err.message).toContain('azure-ai: ');
  });

  it('keeps the status of 400, 429 and 500 answers', async () => {
    const c = client();
    const req = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };
    suite.fake.fail({ status: 400, body: { error: { code: 'Bad Request', message: 'max_tokens must be positive', status: 400 } } });
    expect(((await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError).status).toBe(400);
    suite.fake.fail({
      status: 429,
      body: { error: { code: 'Too Many Requests', message: 'Rate limit reached for requests' } },
      headers: { 'retry-after': '2' },
    });
    const limited = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/Rate limit reached/);
    suite.fake.fail({ status: 500, body: { error: { code: 'InternalServerError', message: 'Backend returned unexpected response.' } } });
    const failed = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(failed.status).toBe(500);
    expect(failed.message).toMatch(/Backend returned unexpected response/);
  });

  it('ends a stream the provider cut off with an error frame', async () => {
    // Frames spaced out so the cut happens after the gateway has started answering (not in the same tick as the writes).
    suite.fake.options.frameDelayMs = 10;
    suite.fake.fail({ dieAfterChunks: 2 });
    const stream = await client().chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('echo: ');
  });
});
