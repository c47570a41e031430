import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startFakeAzureAI, type FakeAzureAI } from './server.js';

/**
 * There is no separate official Azure AI inference SDK installed (`@azure-rest/ai-inference` is not a
 * devDependency), so the fake is proved with the openai client pointed at the endpoint with the `api-key`
 * header and the `api-version` query, which is how Microsoft documents OpenAI-client use of these endpoints.
 */
describe('Azure AI model inference fake, proved with the openai client', () => {
  let fake: FakeAzureAI;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeAzureAI({ apiKey: 'ai-key', model: 'Mistral-large-2411' });
    client = new OpenAI({
      baseURL: fake.url,
      apiKey: 'unused',
      defaultHeaders: { 'api-key': 'ai-key', authorization: null },
      defaultQuery: { 'api-version': '2024-05-01-preview' },
      maxRetries: 0,
    });
  });
  afterAll(() => fake.close());

  it('parses a chat answer', async () => {
    const res = await client.chat.completions.create({ model: 'Mistral-large-2411', messages: [{ role: 'user', content: 'bonjour' }] });
    expect(res.choices[0]!.message.content).toBe('echo: bonjour');
    expect(res.model).toBe('Mistral-large-2411');
    expect(fake.lastRequest!.path).toBe('/chat/completions');
    expect(fake.lastRequest!.headers['api-key']).toBe('ai-key');
  });

  it('parses a stream with usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'a b c' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(text).toBe('echo: a b c');
    expect(usage).toBeGreaterThan(0);
  });

  it('parses a tool call', async () => {
    const res = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'find cats' }],
      tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object', properties: {} } } }],
    });
    const call = res.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('search');
  });

  it('serves embeddings and /info', async () => {
    const res = await client.embeddings.create({ model: 'e', input: 'x' });
    expect(res.data[0]!.embedding).toHaveLength(8);
    const info = await client.get('/info');
    expect(info).toMatchObject({ model_name: 'Mistral-large-2411' });
  });

  it('refuses unknown parameters with 422 unless extra-parameters says drop', async () => {
    const err = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }], logit_bias: { '1': 1 } })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    const ok = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'x' }], logit_bias: { '1': 1 } },
      { headers: { 'extra-parameters': 'drop' } },
    );
    expect(ok.choices[0]!.message.content).toBe('echo: x');
  });

  it('answers 401 for a wrong key in the Azure error shape', async () => {
    const bad = new OpenAI({ baseURL: fake.url, apiKey: 'wrong', defaultQuery: { 'api-version': '2024-05-01-preview' }, maxRetries: 0 });
    const err = await bad.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('Unauthorized');
  });
});
