import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { CallContext } from '../provider.js';
import { googleProvider } from './google-provider.js';
import { startFakeGoogle, type FakeGoogle } from '../../../test/fakes/google/server.js';
import { googleErrorBody } from '../../../test/fakes/google/gemini-reply.js';

let fake: FakeGoogle;
const http = new HttpClient();

beforeAll(async () => {
  fake = await startFakeGoogle({ apiKey: 'AIza-fake', cachedTokens: 3 });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});
beforeEach(() => fake.reset());

function ctx(stream: boolean, apiKey = 'AIza-fake'): CallContext {
  return {
    target: { provider: 'google', apiKey, customHost: fake.url, config: {}, forwardHeaders: {} },
    stream,
    signal: new AbortController().signal,
    http,
    clock: systemClock,
  };
}

async function complete(req: ChatCompletionRequest, apiKey?: string): Promise<ChatCompletion> {
  const c = ctx(false, apiKey);
  const call = await googleProvider.endpoints.chat!.buildRequest(req, c);
  const res = await http.sendText({ ...call, signal: c.signal });
  if (res.status >= 300) throw googleProvider.mapError(res.status, res.text, res.headers);
  return googleProvider.endpoints.chat!.mapResponse(JSON.parse(res.text), req, c);
}

async function stream(req: ChatCompletionRequest): Promise<ChatCompletionChunk[]> {
  const c = ctx(true);
  const call = await googleProvider.endpoints.chat!.buildRequest(req, c);
  const res = await http.send({ ...call, signal: c.signal });
  if (res.status >= 300) throw googleProvider.mapError(res.status, await res.body.text(), res.headers);
  const mapper = googleProvider.endpoints.chat!.createStreamMapper!(req, c);
  const out: ChatCompletionChunk[] = [];
  for await (const bytes of res.body) out.push(...mapper.push(bytes as Uint8Array));
  out.push(...mapper.end());
  return out;
}

const tools: ChatCompletionRequest['tools'] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', additionalProperties: false, properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

describe('google adapter against the Gemini fake', () => {
  it('completes a chat with a system prompt, an image, usage and cached tokens', async () => {
    const out = await complete({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(out.choices[0]!.message.content).toBe('echo: what is this [images: 1]');
    expect(out.choices[0]!.finish_reason).toBe('stop');
    expect(out.usage).toMatchObject({ prompt_tokens: expect.any(Number), prompt_tokens_details: { cached_tokens: 3 } });
    expect(out.usage!.total_tokens).toBe(out.usage!.prompt_tokens + out.usage!.completion_tokens);
    expect(fake.lastRequest!.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
  });

  it('round-trips a tool call (the schema sanitiser keeps the fake, which rejects additionalProperties, happy)', async () => {
    const first = await complete({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Paris?' }], tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"query":"Paris?"}' });
    const second = await complete({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'Paris?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp":21}' },
      ],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe('tool said: {"temp":21}');
  });

  it('keeps gemini-3 thought signatures across the round trip (the fake rejects calls without one)', async () => {
    const first = await complete({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'x' }], tools });
    const msg = first.choices[0]!.message;
    const second = await complete({
      model: 'gemini-3-pro-preview',
      messages: [{ role: 'user', content: 'x' }, msg, { role: 'tool', tool_call_id: msg.tool_calls![0]!.id, content: 'ok' }],
    });
    expect(second.choices[0]!.message.content).toBe('tool said: ok');
    expect(fake.lastRequest!.body.contents[1].parts[0].thoughtSignature).toBe(
      (msg.tool_calls![0] as { extra_content?: { google: { thought_signature: string } } }).extra_content!.google.thought_signature,
    );
  });

  it('streams text, reasoning and usage', async () => {
    const chunks = await stream({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'a b c' }],
      thinking: { type: 'enabled', budget_tokens: 256 },
    });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: a b c');
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('thinking about: a b c');
    expect(chunks.at(-1)!.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('streams a tool call', async () => {
    const chunks = await stream({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Paris?' }], tools });
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.map((d) => d.function?.arguments).join('')).toBe('{"query":"Paris?"}');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
  });

  it('fails a stream cut by the provider', async () => {
    fake.fail({ dieAfterChunks: 2 });
    await expect(
      stream({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'one two three four five' }] }),
    ).rejects.toBeDefined();
  });

  it('maps a wrong key and injected errors with their status', async () => {
    await expect(complete({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }, 'wrong')).rejects.toMatchObject({
      status: 400,
      publicCode: 'INVALID_ARGUMENT',
    });
    fake.fail({ status: 500, body: googleErrorBody(500, 'INTERNAL', 'An internal error has occurred.') });
    await expect(complete({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 500,
      message: 'An internal error has occurred.',
    });
  });

  it('embeds through embedContent and batchEmbedContents', async () => {
    const c = ctx(false);
    for (const input of ['hello', ['a', 'b']]) {
      const req = { model: 'gemini-embedding-001', input };
      const call = await googleProvider.endpoints.embeddings!.buildRequest(req, c);
      const res = await http.sendText(call);
      expect(res.status).toBe(200);
      const out = googleProvider.endpoints.embeddings!.mapResponse(JSON.parse(res.text), req, c);
      expect(out.data).toHaveLength(Array.isArray(input) ? 2 : 1);
      expect(out.data[0]!.embedding).toHaveLength(8);
    }
  });

  it('lists models', async () => {
    const models = await googleProvider.listModels!(ctx(false));
    expect(models.map((m) => m.id)).toContain('gemini-2.5-flash');
  });
});
