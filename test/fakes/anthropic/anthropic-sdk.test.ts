import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, anthropicErrorBody, apiKeyOf, type FakeAnthropic } from './server.js';

const MODEL = 'claude-sonnet-4-20250514';
const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } },
};

describe('Anthropic fake, proven with @anthropic-ai/sdk', () => {
  let fake: FakeAnthropic;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers messages.create with a parsed message and usage', async () => {
    const msg = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(msg.type).toBe('message');
    expect(msg.role).toBe('assistant');
    expect(msg.model).toBe(MODEL);
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: hello there' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBe(5);
    const seen = fake.lastRequest!;
    expect(seen.path).toBe('/v1/messages');
    expect(apiKeyOf(seen)).toBe('sk-ant-test');
    expect(seen.headers['anthropic-version']).toBeTypeOf('string');
    expect(seen.body.system).toBe('Be brief.');
  });

  it('streams text with the documented events, assembled by the SDK', async () => {
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'one two three' }] });
    const types: string[] = [];
    let text = '';
    stream.on('streamEvent', (e) => types.push(e.type));
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(text).toBe('echo: one two three');
    expect(final.content).toEqual([{ type: 'text', text: 'echo: one two three' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(5);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_start');
    expect(types).toContain('content_block_stop');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('streams a tool_use block whose input_json_delta pieces parse to the input', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'weather in Paris' }],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const block = final.content[0]!;
    expect(block.type).toBe('tool_use');
    if (block.type !== 'tool_use') return;
    expect(block.name).toBe('get_weather');
    expect(block.id).toMatch(/^toolu_/);
    expect(block.input).toEqual({ query: 'weather in Paris' });

    const next = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather in Paris' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: 'sunny, 21C' }] },
      ],
    });
    expect(next.content).toEqual([{ type: 'text', text: 'tool said: sunny, 21C' }]);
  });

  it('streams signed thinking when thinking is enabled and accepts it back', async () => {
    const final = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'think' }],
      })
      .finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const thinking = final.content[0]!;
    if (thinking.type !== 'thinking') return;
    expect(thinking.thinking).toBe('Thinking about: think');
    expect(thinking.signature).toMatch(/^sig_/);
    const again = await client.messages.create({
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'think' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: 'more' },
      ],
    });
    expect(again.content[1]).toEqual({ type: 'text', text: 'echo: more' });
  });

  it('turns an error answer into the SDK error class with its status and type', async () => {
    fake.fail({ status: 529, body: anthropicErrorBody('overloaded_error', 'Overloaded') });
    const err = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.status).toBe(529);
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('refuses a wrong key (401) and a body without max_tokens (400)', async () => {
    const wrong = new Anthropic({ apiKey: 'nope', baseURL: fake.url, maxRetries: 0 });
    const e401 = await wrong.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(e401).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(e401.error.error.type).toBe('authentication_error');
    const e400 = await client.messages.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] } as never).catch((e) => e);
    expect(e400).toBeInstanceOf(Anthropic.BadRequestError);
    expect(e400.error.error.message).toBe('max_tokens: Field required');
  });

  it('sends an error event mid-stream, which the SDK throws while iterating', async () => {
    fake.failStreamWithErrorEvent({ afterFrames: 4 }); // message_start, content_block_start, ping, one delta
    const stream = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'a b c d' }],
    });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const ev of stream) seen.push(ev.type);
    })().catch((e) => e);
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.error).toMatchObject({ error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('counts tokens with messages.countTokens', async () => {
    const counted = await client.messages.countTokens({
      model: MODEL,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(counted.input_tokens).toBe(Math.ceil('Be brief. hello there'.length / 4));
    expect(fake.lastRequest!.path).toBe('/v1/messages/count_tokens');
  });

  it('requires anthropic-version', async () => {
    const res = await fetch(fake.url + '/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });
});
