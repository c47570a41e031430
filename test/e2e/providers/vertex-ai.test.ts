import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { readChatStreamUntilError } from '../../helpers/provider-suite.js';
import { startFakeVertex, type FakeVertex } from '../../fakes/vertex-ai/server.js';
import { googleErrorBody } from '../../fakes/google/gemini-reply.js';

const EMAIL = 'gateway-e2e@test-project.iam.gserviceaccount.com';
const EMAIL2 = 'concurrency-e2e@test-project.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const WRONG_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const GEMINI = 'gemini-2.5-flash';
const CLAUDE = 'claude-sonnet-4@20250514';
const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Looks a thing up',
      parameters: { type: 'object', additionalProperties: false, properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];
type ApiError = InstanceType<typeof OpenAI.APIError>;

let gw: Awaited<ReturnType<typeof startGateway>>;
let fake: FakeVertex;

beforeAll(async () => {
  fake = await startFakeVertex({
    serviceAccounts: [
      { client_email: EMAIL, publicKey },
      { client_email: EMAIL2, publicKey },
    ],
    project: 'test-project',
  });
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

function client(over: Record<string, unknown> = {}, key = PEM): OpenAI {
  const config = {
    provider: 'vertex-ai',
    cloud2_project_id: 'test-project',
    cloud2_region: 'us-east5',
    cloud2_service_account_json: {
      type: 'service_account',
      project_id: 'test-project',
      client_email: EMAIL,
      private_key: key,
      private_key_id: 'k1',
      token_uri: fake.tokenUri,
    },
    custom_host: fake.origin,
    ...over,
  };
  return gw.openai({ 'x-gateway-config': JSON.stringify(config) }).withOptions({ maxRetries: 0 });
}

async function collect(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): Promise<{ text: string; finish: string | null; usage?: OpenAI.CompletionUsage | null; args: string }> {
  const out = { text: '', finish: null as string | null, usage: undefined as OpenAI.CompletionUsage | undefined | null, args: '' };
  for await (const chunk of stream) {
    out.text += chunk.choices[0]?.delta.content ?? '';
    for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) out.args += tc.function?.arguments ?? '';
    out.finish = chunk.choices[0]?.finish_reason ?? out.finish;
    if (chunk.usage) out.usage = chunk.usage;
  }
  return out;
}

describe.each([
  ['Gemini', GEMINI, 'google', ':generateContent'],
  ['Claude', CLAUDE, 'anthropic', ':rawPredict'],
])('vertex-ai %s through the gateway', (_label, model, publisher, method) => {
  it('answers a chat with a system prompt, with usage, using a service-account token', async () => {
    const res = await client().chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello vertex' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: hello vertex');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const upstream = fake.requests.find((r) => r.path !== '/token')!;
    expect(upstream.path).toBe(`/v1/projects/test-project/locations/us-east5/publishers/${publisher}/models/${model}${method}`);
    expect(upstream.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    if (publisher === 'google') expect(upstream.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    else expect(upstream.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', system: expect.anything() });
  });

  it('streams with a system prompt and a usage chunk', async () => {
    const out = await collect(
      await client().chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'a b c' },
        ],
      }),
    );
    expect(out.text).toBe('echo: a b c');
    expect(out.finish).toBe('stop');
    expect(out.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('passes an image part', async () => {
    const res = await client().chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: look [images: 1]');
  });

  it('round-trips a tool call, and streams one', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'find cats' }];
    const first = await client().chat.completions.create({ model, messages, tools });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'find cats' });
    const second = await client().chat.completions.create({
      model,
      tools,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'three cats' }],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: three cats');
    const streamed = await collect(await client().chat.completions.create({ model, stream: true, tools, messages }));
    expect([streamed.args, streamed.finish]).toEqual(['{"query":"find cats"}', 'tool_calls']);
  });

  it('ends a stream in an error frame when the provider drops the connection', async () => {
    const c = client();
    await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'warm the token' }] });
    fake.fail({ dieAfterChunks: 4 });
    fake.options.frameDelayMs = 10;
    const stream = await c.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'one two three four' }] });
    const { text, error: err } = await readChatStreamUntilError(stream);
    expect(err).toBeInstanceOf(Error);
    expect(text.length).toBeGreaterThan(0);
    expect('echo: one two three four'.startsWith(text) && text !== 'echo: one two three four').toBe(true);
  });
});

describe('vertex-ai details through the gateway', () => {
  it('exchanges one token for many concurrent requests of a fresh service account', async () => {
    const c = client({ cloud2_service_account_json: { client_email: EMAIL2, private_key: PEM, token_uri: fake.tokenUri } });
    await Promise.all(
      Array.from({ length: 8 }, () => c.chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'x' }] })),
    );
    expect(fake.tokenRequests).toBe(1);
    expect(fake.requests.filter((r) => r.path.endsWith(':generateContent'))).toHaveLength(8);
  });

  it('embeds through :predict', async () => {
    const res = await client().embeddings.create({ model: 'text-embedding-005', input: ['hello', 'world'], encoding_format: 'float' });
    expect(res.data.map((d) => d.embedding.length)).toEqual([8, 8]);
    expect(res.usage.prompt_tokens).toBe(4);
    expect(fake.lastRequest!.path).toBe('/v1/projects/test-project/locations/us-east5/publishers/google/models/text-embedding-005:predict');
  });

  it('answers 401 when the service account key is wrong, or the bearer token unknown', async () => {
    const e1 = (await client({}, WRONG_PEM)
      .chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(e1).toBeInstanceOf(OpenAI.APIError);
    expect(e1.status).toBe(401);
    expect(e1.message).toContain('Invalid JWT Signature');
    const e2 = (await client({ cloud2_service_account_json: undefined, api_key: 'ya29.not-issued' })
      .chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(e2.status).toBe(401);
    expect(e2.code).toBe('provider_authentication_error');
    expect(e2.message).toContain('vertex-ai: ');
  });

  it('accepts an access token as api_key', async () => {
    const token = fake.tokens.issue();
    const res = await client({ cloud2_service_account_json: undefined, api_key: token }).chat.completions.create({
      model: GEMINI,
      messages: [{ role: 'user', content: 'tok' }],
    });
    expect(res.choices[0]!.message.content).toBe('echo: tok');
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'],
    [
      429,
      'RESOURCE_EXHAUSTED',
      'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model.',
    ],
    [500, 'INTERNAL', 'Internal error encountered.'],
  ])('maps a Gemini %i with its status kept', async (status, code, message) => {
    const c = client();
    await c.chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'warm the token' }] });
    fake.fail({ status, body: googleErrorBody(status, code, message) });
    const err = (await c.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
  });

  it('maps a Claude error body with its status and type kept', async () => {
    const c = client();
    await c.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'warm the token' }] });
    fake.fail({
      status: 429,
      body: {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
      },
    });
    const err = (await c.chat.completions
      .create({ model: CLAUDE, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(429);
    expect(err.type).toBe('rate_limit_error');
  });

  it('ends a Gemini stream in an error frame on an error event', async () => {
    fake.options.streamErrorAfter = 2;
    fake.options.frameDelayMs = 10;
    const stream = await client().chat.completions.create({
      model: GEMINI,
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    });
    await expect(collect(stream)).rejects.toThrow(/internal error/i);
  });
});
