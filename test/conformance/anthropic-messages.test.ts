import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { readEvents } from '../helpers/sse-events.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.js';
import { startFakeGoogle, type FakeGoogle } from '../fakes/google/server.js';
import { missingInEvents, missingInMessage } from './anthropic-message-shapes.js';

/**
 * Messages answers the gateway builds from an OpenAI-style target carry every member `@anthropic-ai/sdk`'s
 * types require (the lists are checked against those types by tsc), usage with its cache members and input
 * tokens known at `message_start`, and stop sequences reported as such when the upstream names them.
 */
const MODEL = 'claude-sonnet-4-20250514';
const weather = {
  name: 'get_weather',
  description: 'Weather',
  input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } },
};

describe('Messages translated from an OpenAI-style target, against the Anthropic SDK types', () => {
  let gw: TestGateway;
  let plain: FakeOpenAI;
  let vllm: FakeOpenAI;
  let sglang: FakeOpenAI;
  let google: FakeGoogle;

  beforeAll(async () => {
    [plain, vllm, sglang] = await Promise.all([
      startFakeOpenAI({ apiKey: 'sk-o', usageDetails: { cachedTokens: 3, reasoningTokens: 2 } }),
      startFakeOpenAI({ apiKey: 'sk-o', stopMember: 'stop_reason' }),
      startFakeOpenAI({ apiKey: 'sk-o', stopMember: 'matched_stop' }),
    ]);
    google = await startFakeGoogle({ apiKey: 'g-key', cachedTokens: 2 });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([plain?.close(), vllm?.close(), sglang?.close(), google?.close()]);
  });

  const headers = (fake: FakeOpenAI, provider = 'openai') => ({
    'x-gateway-config': JSON.stringify({ provider, api_key: 'sk-o', custom_host: fake.url }),
    'anthropic-version': '2023-06-01',
  });
  const post = async (fake: FakeOpenAI, body: Record<string, unknown>) => {
    const res = await gw.fetch('/v1/messages', {
      method: 'POST',
      headers: headers(fake),
      body: JSON.stringify({ model: MODEL, max_tokens: 100, ...body }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return res;
  };

  it('answers messages with every required member: text, tool_use with its caller, usage with cache and thinking tokens', async () => {
    const text = (await (await post(plain, { messages: [{ role: 'user', content: 'hello' }] })).json()) as Record<string, unknown>;
    expect(missingInMessage(text)).toEqual([]);
    expect(text.usage).toMatchObject({
      cache_read_input_tokens: 3,
      cache_creation_input_tokens: 0,
      output_tokens_details: { thinking_tokens: 2 },
    });
    const tool = (await (await post(plain, { tools: [weather], messages: [{ role: 'user', content: 'Paris' }] })).json()) as Record<
      string,
      unknown
    >;
    expect(missingInMessage(tool)).toEqual([]);
    expect(tool.content).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { query: 'Paris' }, caller: { type: 'direct' } },
    ]);
  });

  it('streams events with every required member and the input tokens known at message_start', async () => {
    for (const extra of [{}, { tools: [weather] }]) {
      const events = (
        await readEvents(await post(plain, { stream: true, messages: [{ role: 'user', content: 'Paris in the spring' }], ...extra }))
      ).map((e) => e.data as Record<string, unknown>);
      expect(missingInEvents(events)).toEqual([]);
      const start = events.find((e) => e.type === 'message_start')!.message as { usage: { input_tokens: number } };
      expect(start.usage.input_tokens).toBeGreaterThan(0);
      const delta = events.find((e) => e.type === 'message_delta')!.usage as Record<string, number>;
      expect(delta).toMatchObject({ cache_read_input_tokens: 3, cache_creation_input_tokens: 0 });
      expect(delta.input_tokens).toBeGreaterThan(0);
    }
  });

  it('parses with the SDK, streamed and not', async () => {
    const client = new Anthropic({
      apiKey: 'unused',
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gw.adminKey, ...headers(plain) },
    });
    const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi sdk' }] });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: hi sdk', citations: null }]);
    const final = await client.messages
      .stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'stream me' }] })
      .finalMessage();
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(final.content).toEqual([{ type: 'text', text: 'echo: stream me', citations: null }]);
  });

  it.each([
    ['vLLM (stop_reason)', () => vllm],
    ['SGLang (matched_stop)', () => sglang],
  ])('reports a stop sequence named by %s, streamed and not', async (_name, fake) => {
    const body = { stop_sequences: ['STOP'], messages: [{ role: 'user', content: 'count then STOP here' }] };
    const json = (await (await post(fake(), body)).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: 'STOP',
      content: [{ type: 'text', text: 'echo: count then ' }],
    });
    const events = (await readEvents(await post(fake(), { ...body, stream: true }))).map((e) => e.data as Record<string, unknown>);
    expect(events.find((e) => e.type === 'message_delta')!.delta).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
  });

  it('says end_turn with a null stop_sequence when the upstream does not name the sequence (OpenAI)', async () => {
    const json = (await (
      await post(plain, { stop_sequences: ['STOP'], messages: [{ role: 'user', content: 'count then STOP here' }] })
    ).json()) as Record<string, unknown>;
    expect(json).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('builds the same members from a Gemini target, streamed and not', async () => {
    const config = { 'x-gateway-config': JSON.stringify({ provider: 'google', api_key: 'g-key', custom_host: google.url }) };
    const send = (body: Record<string, unknown>) =>
      gw.fetch('/v1/messages', {
        method: 'POST',
        headers: config,
        body: JSON.stringify({ model: 'gemini-2.5-flash', max_tokens: 100, ...body }),
      });
    for (const extra of [{}, { tools: [weather] }]) {
      const res = await send({ messages: [{ role: 'user', content: 'Paris' }], ...extra });
      expect(res.status).toBe(200);
      expect(missingInMessage((await res.json()) as Record<string, unknown>)).toEqual([]);
      const events = (await readEvents(await send({ stream: true, messages: [{ role: 'user', content: 'Paris' }], ...extra }))).map(
        (e) => e.data as Record<string, unknown>,
      );
      expect(missingInEvents(events)).toEqual([]);
      expect((events[0]!.message as { usage: { input_tokens: number } }).usage.input_tokens).toBeGreaterThan(0);
    }
  });
});
