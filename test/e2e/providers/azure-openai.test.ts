import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { PNG_1X1 as PNG, collectChatStream, useProviderSuite, readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeAzureOpenAI } from '../../fakes/azure-openai/server.js';

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

describe('azure-openai through the gateway (openai SDK → gateway → Azure OpenAI fake)', () => {
  const suite = useProviderSuite(
    () =>
      startFakeAzureOpenAI({
        apiKey: 'az-key',
        bearerTokens: ['entra-token-1'],
        deployments: { 'gpt4o-prod': 'gpt-4o-2024-08-06', 'embed-small': 'text-embedding-3-small' },
        entra: { clientId: 'app-1', clientSecret: 'app-secret', token: 'entra-token-1' },
      }),
    (fake) => ({
      provider: 'azure-openai',
      api_key: 'az-key',
      custom_host: fake.url,
      deployment_id: 'gpt4o-prod',
      api_version: '2024-10-21',
    }),
  );
  const { client } = suite;

  it('completes a chat with a system prompt on the configured deployment, with usage', async () => {
    const res = await client().chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello azure' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: hello azure [system: You are terse.]');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.model).toBe('gpt-4o-2024-08-06');
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    const seen = suite.fake.lastRequest!;
    expect(seen.path).toBe('/openai/deployments/gpt4o-prod/chat/completions');
    expect(seen.query.get('api-version')).toBe('2024-10-21');
    expect(seen.headers['api-key']).toBe('az-key');
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('streams a chat with a system prompt and a usage chunk', async () => {
    const stream = await client().chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'stream these words' },
      ],
    });
    const { text, finish, usage } = await collectChatStream(stream);
    expect(text).toBe('echo: stream these words [system: Be brief.]');
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    expect(suite.fake.lastRequest!.body.stream).toBe(true);
  });

  it('sends image parts (data: and https URLs) unchanged', async () => {
    const res = await client().chat.completions.create({
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what is this [images: 2]');
    expect(suite.fake.lastRequest!.body.messages[0].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG}` },
    });
  });

  it('runs a tool call round trip', async () => {
    const c = client();
    const first = await c.chat.completions.create({
      model: 'gpt-4o',
      tools: TOOLS,
      messages: [{ role: 'user', content: 'weather in Oslo' }],
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'weather in Oslo' });
    const second = await c.chat.completions.create({
      model: 'gpt-4o',
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'rain, 8C' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: rain, 8C');
    expect(suite.fake.lastRequest!.body.messages[2]).toEqual({ role: 'tool', tool_call_id: call.id, content: 'rain, 8C' });
  });

  it('chooses the deployment by model alias (else the default) and serves embeddings', async () => {
    const deployments = [
      { deployment_id: 'gpt4o-prod', alias: 'gpt-4o', api_version: '2024-10-21', is_default: true },
      { deployment_id: 'embed-small', alias: 'text-embedding-3-small', api_version: '2024-06-01' },
    ];
    const c = client({ deployment_id: undefined, api_version: undefined, deployments });
    const emb = await c.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(emb.data).toHaveLength(2);
    expect(emb.data[0]!.embedding).toHaveLength(8);
    expect(emb.usage.prompt_tokens).toBe(2);
    expect(suite.fake.lastRequest!.path).toBe('/openai/deployments/embed-small/embeddings');
    expect(suite.fake.lastRequest!.query.get('api-version')).toBe('2024-06-01');
    await c.chat.completions.create({ model: 'unknown-alias', messages: [{ role: 'user', content: 'x' }] });
    expect(suite.fake.lastRequest!.path).toBe('/openai/deployments/gpt4o-prod/chat/completions');
  });

  it('sends config Authorization (an Entra token) instead of api-key', async () => {
    const res = await client({ api_key: undefined, Authorization: 'Bearer entra-token-1' }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'entra' }],
    });
    expect(res.choices[0]!.message.content).toBe('echo: entra');
    expect(suite.fake.lastRequest!.headers.authorization).toBe('Bearer entra-token-1');
    expect(suite.fake.lastRequest!.headers['api-key']).toBeUndefined();
  });

  it('gets an Entra token with client credentials stored in a virtual key', async () => {
    const created = await suite.gw.fetch('/v1/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({
        name: 'azure entra',
        slug: 'azure-entra',
        provider: 'azure-openai',
        config: {
          custom_host: suite.fake.url,
          deployment_id: 'gpt4o-prod',
          cloud3_entra_tenant_id: 'tenant-1',
          cloud3_entra_client_id: 'app-1',
          cloud3_entra_client_secret: 'app-secret',
          cloud3_entra_authority_host: suite.fake.origin,
        },
      }),
    });
    expect(created.status).toBeLessThan(300);
    const c = suite.gw.openai({ 'x-gateway-config': JSON.stringify({ virtual_key: 'azure-entra' }) }).withOptions({ maxRetries: 0 });
    const res = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'entra app' }] });
    expect(res.choices[0]!.message.content).toBe('echo: entra app');
    const token = suite.fake.requests.find((r) => r.path === '/tenant-1/oauth2/v2.0/token')!;
    expect(new URLSearchParams(token.rawBody.toString()).get('scope')).toBe('https://cognitiveservices.azure.com/.default');
    expect(suite.fake.lastRequest!.headers.authorization).toBe('Bearer entra-token-1');
  });

  it("keeps Azure's 401 for a wrong key", async () => {
    const err = (await client({ api_key: 'wrong' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/Access denied due to invalid subscription key/);
  });

  it('keeps the status of 400, 404, 429 and 500 answers', async () => {
    const c = client();
    const req = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'x' }] };
    suite.fake.fail({
      status: 400,
      body: {
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
        },
      },
    });
    const filtered = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(filtered.status).toBe(400);
    expect(filtered.code).toBe('content_filter');
    const missing = (await client({ deployment_id: 'nope' })
      .chat.completions.create(req)
      .catch((e: unknown) => e)) as ApiError;
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('DeploymentNotFound');
    suite.fake.fail({
      status: 429,
      body: { error: { code: '429', message: 'Rate limit is exceeded. Try again in 6 seconds.' } },
      headers: { 'retry-after': '6' },
    });
    const limited = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/Rate limit is exceeded/);
    suite.fake.fail({
      status: 500,
      body: { error: { code: 'InternalServerError', message: 'The server had an error while processing your request.' } },
    });
    const failed = (await c.chat.completions.create(req).catch((e: unknown) => e)) as ApiError;
    expect(failed.status).toBe(500);
    expect(failed.message).toMatch(/server had an error/);
  });

  it('ends a stream the provider cut off with an error frame', async () => {
    // Frames spaced out so the cut happens after the gateway has started answering (not in the same tick as the writes).
    suite.fake.options.frameDelayMs = 10;
    suite.fake.fail({ dieAfterChunks: 3 });
    const stream = await client().chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'a long answer please' }],
    });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe('echo: ');
  });
});
