import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { CallContext } from '../provider.js';
import { FAKE_AWS_CREDENTIALS, bedrockFault, startFakeBedrock, type FakeBedrock } from '../../../test/fakes/bedrock/server.js';
import { bedrockProvider } from './bedrock-provider.js';
import { callContext, TEST_CREDENTIALS } from './__fixtures__/call-context.js';

const MODEL = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const chat = bedrockProvider.endpoints.chat!;

describe('bedrock provider against the fake', () => {
  let fake: FakeBedrock;
  let tokenFake: FakeBedrock;
  const http = new HttpClient();
  beforeAll(async () => {
    fake = await startFakeBedrock({ cacheReadInputTokens: 4 });
    tokenFake = await startFakeBedrock({ credentials: { ...FAKE_AWS_CREDENTIALS, sessionToken: 'sess-9' }, region: 'eu-central-1' });
  });
  afterAll(async () => {
    await fake.close();
    await tokenFake.close();
    await http.close();
  });
  beforeEach(() => fake.reset());

  const ctxFor = (stream = false, config?: Record<string, unknown>, target = fake): CallContext =>
    callContext({ customHost: target.url, http, stream, config });

  async function complete(req: ChatCompletionRequest, ctx = ctxFor()): Promise<ChatCompletion> {
    const call = await chat.buildRequest(req, ctx);
    const res = await http.sendText({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    if (res.status !== 200) throw bedrockProvider.mapError(res.status, res.text, res.headers);
    return chat.mapResponse(JSON.parse(res.text), req, ctx);
  }

  async function stream(req: ChatCompletionRequest, ctx = ctxFor(true)): Promise<ChatCompletionChunk[]> {
    const call = await chat.buildRequest(req, ctx);
    const res = await http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    const mapper = chat.createStreamMapper!(req, ctx);
    const out: ChatCompletionChunk[] = [];
    for await (const bytes of res.body) out.push(...mapper.push(bytes as Uint8Array));
    out.push(...mapper.end());
    return out;
  }

  it('completes a chat with a system prompt and an image', async () => {
    const out = await complete({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'describe' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(out.choices[0]!.message.content).toBe('echo: describe [images: 1]');
    expect(out.choices[0]!.finish_reason).toBe('stop');
    expect(out.usage!.prompt_tokens_details!.cached_tokens).toBe(4);
    // 'Be brief.' is 3 fake tokens, 'describe' 2, plus 4 cache-read tokens.
    expect(out.usage!.prompt_tokens).toBe(3 + 2 + 4);
    expect(fake.lastRequest!.body.system).toEqual([{ text: 'Be brief.' }]);
  });

  it('runs a tool round trip', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'lookup', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
      },
    ];
    const first = await complete({ model: MODEL, tools, messages: [{ role: 'user', content: 'weather in Oslo' }] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'weather in Oslo' });
    const second = await complete({
      model: MODEL,
      tools,
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: sunny');
  });

  it('streams text with reasoning, a finish chunk and usage', async () => {
    const chunks = await stream({
      model: MODEL,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'count to three' }],
    });
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta));
    expect(deltas[0]).toEqual({ role: 'assistant', content: '' });
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('thinking about: count to three');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('echo: count to three');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1]!.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('streams a tool call', async () => {
    const chunks = await stream({
      model: MODEL,
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      messages: [{ role: 'user', content: 'find x' }],
    });
    const calls = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(calls[0]!.function!.name).toBe('lookup');
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual({ query: 'find x' });
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('throws the exception event of a failing stream with its status', async () => {
    fake.failStream({ afterEvents: 2, exceptionType: 'modelStreamErrorException', message: 'The model stream failed.' });
    await expect(stream({ model: MODEL, messages: [{ role: 'user', content: 'a b c' }] })).rejects.toMatchObject({
      status: 424,
      message: 'The model stream failed.',
    });
  });

  it('signs with a session token and a region', async () => {
    const ctx = ctxFor(false, { ...TEST_CREDENTIALS, cloud1_session_token: 'sess-9', cloud1_region: 'eu-central-1' }, tokenFake);
    const out = await complete({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }, ctx);
    expect(out.choices[0]!.message.content).toBe('echo: hello');
    const noToken = ctxFor(false, { ...TEST_CREDENTIALS, cloud1_region: 'eu-central-1' }, tokenFake);
    await expect(complete({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }, noToken)).rejects.toMatchObject({
      status: 403,
      publicCode: 'UnrecognizedClientException',
    });
  });

  it('maps a wrong secret, a validation error and injected 429/500 keeping the status', async () => {
    const req = { model: MODEL, messages: [{ role: 'user' as const, content: 'x' }] };
    await expect(complete(req, ctxFor(false, { ...TEST_CREDENTIALS, cloud1_secret_access_key: 'wrong' }))).rejects.toMatchObject({
      status: 403,
      publicCode: 'InvalidSignatureException',
    });
    await expect(complete({ model: MODEL, messages: [{ role: 'assistant', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
      publicCode: 'ValidationException',
    });
    fake.fail(bedrockFault(429, 'ThrottlingException', 'Too many requests'), bedrockFault(500, 'InternalServerException', 'boom'));
    await expect(complete(req)).rejects.toMatchObject({ status: 429, message: 'Too many requests', retryable: true });
    await expect(complete(req)).rejects.toMatchObject({ status: 500, publicCode: 'InternalServerException' });
  });
});
