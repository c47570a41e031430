import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureOpenAI } from 'openai';
import { startFakeAzureOpenAI, type FakeAzureOpenAI } from './server.js';

describe('Azure OpenAI fake, proved with the openai AzureOpenAI client', () => {
  let fake: FakeAzureOpenAI;
  let client: AzureOpenAI;

  beforeAll(async () => {
    fake = await startFakeAzureOpenAI({
      apiKey: 'az-key',
      deployments: { 'gpt4o-prod': 'gpt-4o-2024-08-06', 'embed-small': 'text-embedding-3-small' },
    });
    client = new AzureOpenAI({
      endpoint: fake.endpoint,
      apiKey: 'az-key',
      apiVersion: '2024-10-21',
      deployment: 'gpt4o-prod',
      maxRetries: 0,
    });
  });
  afterAll(() => fake.close());

  it('parses a chat answer sent to the deployment path with api-version and api-key', async () => {
    const res = await client.chat.completions.create({
      model: 'ignored',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello azure' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: hello azure [system: be brief]');
    expect(res.model).toBe('gpt-4o-2024-08-06');
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const req = fake.lastRequest!;
    expect(req.path).toBe('/openai/deployments/gpt4o-prod/chat/completions');
    expect(req.query.get('api-version')).toBe('2024-10-21');
    expect(req.headers['api-key']).toBe('az-key');
  });

  it("parses a stream, including Azure's leading prompt_filter_results chunk", async () => {
    const stream = await client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(text).toBe('echo: one two three');
    expect(finish).toBe('stop');
    expect(usage).toBeGreaterThan(0);
  });

  it('parses a tool call', async () => {
    const res = await client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'weather in Paris' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { query: { type: 'string' } } } } },
      ],
    });
    const call = res.choices[0]!.message.tool_calls![0]!;
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ query: 'weather in Paris' });
  });

  it('serves embeddings on an embeddings deployment', async () => {
    const embedClient = new AzureOpenAI({ endpoint: fake.endpoint, apiKey: 'az-key', apiVersion: '2024-10-21', maxRetries: 0 });
    const res = await embedClient.embeddings.create({ model: 'embed-small', input: ['a', 'b'] });
    expect(res.data).toHaveLength(2);
    expect(res.data[0]!.embedding).toHaveLength(8);
    expect(fake.lastRequest!.path).toBe('/openai/deployments/embed-small/embeddings');
  });

  it("answers 401 in Azure's error shape for a wrong key", async () => {
    const bad = new AzureOpenAI({
      endpoint: fake.endpoint,
      apiKey: 'wrong',
      apiVersion: '2024-10-21',
      deployment: 'gpt4o-prod',
      maxRetries: 0,
    });
    const err = await bad.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AzureOpenAI.AuthenticationError);
    expect((err as InstanceType<typeof AzureOpenAI.AuthenticationError>).status).toBe(401);
    expect((err as InstanceType<typeof AzureOpenAI.AuthenticationError>).code).toBe('401');
  });

  it('answers 404 DeploymentNotFound for an unknown deployment and a queued 429 with retry-after', async () => {
    const other = new AzureOpenAI({
      endpoint: fake.endpoint,
      apiKey: 'az-key',
      apiVersion: '2024-10-21',
      deployment: 'nope',
      maxRetries: 0,
    });
    const err = await other.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof AzureOpenAI.NotFoundError>).status).toBe(404);
    expect((err as InstanceType<typeof AzureOpenAI.NotFoundError>).code).toBe('DeploymentNotFound');
    fake.fail({
      status: 429,
      body: { error: { code: '429', message: 'Rate limit is exceeded. Try again in 6 seconds.' } },
      headers: { 'retry-after': '6' },
    });
    const limited = await client.chat.completions
      .create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(AzureOpenAI.RateLimitError);
    expect((limited as InstanceType<typeof AzureOpenAI.RateLimitError>).message).toContain('Rate limit is exceeded');
  });
});
