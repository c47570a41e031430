import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { systemClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { CallContext } from '../provider.js';
import { VertexTokenCache } from './vertex-ai-auth.js';
import { createVertexAiProvider } from './vertex-ai-provider.js';
import { startFakeVertex, type FakeVertex } from '../../../test/fakes/vertex-ai/server.js';
import { googleErrorBody } from '../../../test/fakes/google/gemini-reply.js';

const EMAIL = 'gw@test-project.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
const http = new HttpClient();
const provider = createVertexAiProvider({ tokens: new VertexTokenCache() });
const chat = provider.endpoints.chat!;
let fake: FakeVertex;

beforeAll(async () => {
  fake = await startFakeVertex({ serviceAccounts: [{ client_email: EMAIL, publicKey }], project: 'test-project' });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});
beforeEach(() => fake.reset());

function ctx(stream = false, config: Record<string, unknown> = {}, customHost: string | null = fake.origin, apiKey?: string): CallContext {
  return {
    target: {
      provider: 'vertex-ai',
      apiKey,
      customHost: customHost ?? undefined,
      config: {
        cloud2_project_id: 'test-project',
        cloud2_region: 'us-east5',
        cloud2_service_account_json: { client_email: EMAIL, private_key: PEM, token_uri: fake.tokenUri },
        ...config,
      },
      forwardHeaders: {},
    },
    stream,
    signal: new AbortController().signal,
    http,
    clock: systemClock,
  };
}

async function complete(req: ChatCompletionRequest, c = ctx()): Promise<ChatCompletion> {
  const call = await chat.buildRequest(req, c);
  const res = await http.sendText(call);
  if (res.status >= 300) throw provider.mapError(res.status, res.text, res.headers);
  return chat.mapResponse(JSON.parse(res.text), req, c);
}

async function stream(req: ChatCompletionRequest): Promise<ChatCompletionChunk[]> {
  const c = ctx(true);
  const call = await chat.buildRequest(req, c);
  const res = await http.send(call);
  if (res.status >= 300) throw provider.mapError(res.status, await res.body.text(), res.headers);
  const mapper = chat.createStreamMapper!(req, c);
  const out: ChatCompletionChunk[] = [];
  for await (const bytes of res.body) out.push(...mapper.push(bytes as Uint8Array));
  return [...out, ...mapper.end()];
}

const user = (text: string): ChatCompletionRequest['messages'] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: text },
];
const tools: ChatCompletionRequest['tools'] = [
  {
    type: 'function',
    function: { name: 'lookup', parameters: { type: 'object', additionalProperties: false, properties: { query: { type: 'string' } } } },
  },
];

describe('vertex-ai URLs', () => {
  it('builds regional, global and custom-host URLs; takes the project from the key when absent', async () => {
    const cfg = { cloud2_service_account_json: undefined };
    const regional = await chat.buildRequest({ model: 'gemini-2.5-flash', messages: user('x') }, ctx(false, cfg, null, 'tok'));
    expect(regional.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/test-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(regional.headers.authorization).toBe('Bearer tok');
    const global = await chat.buildRequest(
      { model: 'claude-sonnet-4@20250514', messages: user('x') },
      ctx(true, { ...cfg, cloud2_region: 'global' }, null, 'tok'),
    );
    expect(global.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/test-project/locations/global/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict',
    );
    const fromKey = await chat.buildRequest(
      { model: 'gemini-2.5-flash', messages: user('x') },
      ctx(true, {
        cloud2_project_id: undefined,
        cloud2_service_account_json: { client_email: EMAIL, private_key: PEM, token_uri: fake.tokenUri, project_id: 'from-key' },
      }),
    );
    expect(fromKey.url).toBe(
      `${fake.origin}/v1/projects/from-key/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
    await expect(async () =>
      chat.buildRequest(
        { model: 'g', messages: user('x') },
        ctx(false, { cloud2_project_id: undefined, cloud2_service_account_json: undefined }, null, 't'),
      ),
    ).rejects.toMatchObject({ param: 'cloud2_project_id' });
  });

  it('sends Claude the Anthropic body without model and with the Vertex version', async () => {
    const call = await chat.buildRequest(
      { model: 'claude-sonnet-4@20250514', messages: user('x'), max_tokens: 50 },
      ctx(false, { cloud2_service_account_json: undefined }, null, 'tok'),
    );
    const body = JSON.parse(String(call.body));
    expect(body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 50,
      system: expect.anything(),
      messages: [{ role: 'user' }],
    });
    expect(body).not.toHaveProperty('model');
    expect(body).not.toHaveProperty('stream');
  });
});

describe('vertex-ai adapter against the Vertex fake', () => {
  it('Gemini: chat with a system prompt and an image, usage, token from the service account', async () => {
    const out = await complete({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'gs://b/cat.png' } },
          ],
        },
      ],
    });
    expect(out.choices[0]!.message.content).toBe('echo: see [images: 1]');
    expect(out.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(fake.lastRequest!.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(fake.lastRequest!.body.contents[0].parts[1]).toEqual({ fileData: { fileUri: 'gs://b/cat.png', mimeType: 'image/png' } });
  });

  it('Gemini: tool round trip and stream', async () => {
    const first = await complete({ model: 'gemini-2.5-flash', messages: user('Paris?'), tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    const second = await complete({
      model: 'gemini-2.5-flash',
      messages: [...user('Paris?'), first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe('tool said: sunny');
    const chunks = await stream({ model: 'gemini-2.5-flash', messages: user('a b c') });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: a b c');
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
  });

  it('Claude: chat, tool round trip and stream through rawPredict / streamRawPredict', async () => {
    const out = await complete({ model: 'claude-sonnet-4@20250514', messages: user('hi') });
    expect(out.choices[0]!.message.content).toBe('echo: hi');
    expect(fake.lastRequest!.path).toBe(
      '/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
    const first = await complete({ model: 'claude-sonnet-4@20250514', messages: user('find'), tools });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const tc = first.choices[0]!.message.tool_calls![0]!;
    const second = await complete({
      model: 'claude-sonnet-4@20250514',
      messages: [...user('find'), first.choices[0]!.message, { role: 'tool', tool_call_id: tc.id, content: 'found' }],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe('tool said: found');
    const chunks = await stream({ model: 'claude-sonnet-4@20250514', messages: user('x y') });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: x y');
    expect(chunks.some((c) => c.usage && c.usage.prompt_tokens > 0)).toBe(true);
  });

  it('maps Google and Anthropic error bodies, and refuses a foreign project with 403', async () => {
    fake.fail({
      status: 429,
      body: googleErrorBody(
        429,
        'RESOURCE_EXHAUSTED',
        'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model.',
      ),
    });
    await expect(complete({ model: 'gemini-2.5-flash', messages: user('x') })).rejects.toMatchObject({
      status: 429,
      publicCode: 'RESOURCE_EXHAUSTED',
    });
    fake.fail({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    await expect(complete({ model: 'claude-sonnet-4@20250514', messages: user('x') })).rejects.toMatchObject({
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    await expect(
      complete({ model: 'gemini-2.5-flash', messages: user('x') }, ctx(false, { cloud2_project_id: 'other' })),
    ).rejects.toMatchObject({ status: 403, publicCode: 'PERMISSION_DENIED' });
    await expect(
      complete(
        { model: 'gemini-2.5-flash', messages: user('x') },
        ctx(false, { cloud2_service_account_json: undefined }, fake.origin, 'ya29.bogus'),
      ),
    ).rejects.toMatchObject({ status: 401, publicCode: 'UNAUTHENTICATED' });
  });

  it('embeds through :predict with token counts', async () => {
    const c = ctx();
    const req = { model: 'text-embedding-005', input: ['hello world', 'bye'], dimensions: 4 };
    const call = await provider.endpoints.embeddings!.buildRequest(req, c);
    expect(JSON.parse(String(call.body))).toEqual({
      instances: [{ content: 'hello world' }, { content: 'bye' }],
      parameters: { outputDimensionality: 4 },
    });
    const res = await http.sendText(call);
    const out = provider.endpoints.embeddings!.mapResponse(JSON.parse(res.text), req, c);
    expect(out.data.map((d) => (d.embedding as number[]).length)).toEqual([4, 4]);
    expect(out.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(provider.endpoints.embeddings!.mapResponse(fixture('predict-embeddings.json'), { input: ['a', 'b'] }, c)).toMatchObject({
      model: 'text-embedding-005',
      usage: { prompt_tokens: 10 },
    });
  });

  it('maps a documented Claude rawPredict answer', () => {
    const out = chat.mapResponse(fixture('raw-predict-claude.json'), { model: 'claude-sonnet-4@20250514', messages: [] }, ctx());
    expect(out.choices[0]).toMatchObject({ message: { content: 'Hello! How can I help you today?' }, finish_reason: 'stop' });
    expect(out.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 12 });
  });
});
