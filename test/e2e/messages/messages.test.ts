import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway } from '../../helpers/gateway.js';
import { startFakeAnthropic, apiKeyOf, type FakeAnthropic } from '../../fakes/anthropic/server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

const MODEL = 'claude-sonnet-4-20250514';
const ANTHROPIC_KEY = 'sk-ant-messages';
const OPENAI_KEY = 'sk-openai-messages';
const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } },
};

describe('POST /v1/messages (Anthropic SDK through the gateway)', () => {
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  const toAnthropic = () => JSON.stringify({ provider: 'anthropic', api_key: ANTHROPIC_KEY, custom_host: anthropic.url });
  const toOpenAI = () => JSON.stringify({ provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url });
  const client = (config: string, headers: Record<string, string> = {}) =>
    new Anthropic({
      apiKey: 'unused',
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gw.adminKey, 'x-gateway-config': config, ...headers },
    });

  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await anthropic?.close();
    await openai?.close();
  });
  beforeEach(() => {
    anthropic.reset();
    openai.reset();
  });

  describe('to an Anthropic target: passed through natively', () => {
    it('answers byte for byte what the provider answered, with the client version headers forwarded', async () => {
      const body = { model: MODEL, max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello native' }] };
      const direct = await fetch(`${anthropic.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const viaGateway = await gw.fetch('/v1/messages', {
        method: 'POST',
        headers: {
          'x-gateway-config': toAnthropic(),
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'tools-2024-05-16',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      expect(viaGateway.status).toBe(200);
      expect(await viaGateway.text()).toBe(await direct.text());
      const seen = anthropic.lastRequest!;
      expect(seen.path).toBe('/v1/messages');
      expect(apiKeyOf(seen)).toBe(ANTHROPIC_KEY);
      expect(seen.headers['anthropic-beta']).toBe('tools-2024-05-16');
      expect(seen.body).toEqual(body);
    });

    it('works with the SDK: create, stream and tools', async () => {
      const c = client(toAnthropic());
      const msg = await c.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi sdk' }] });
      expect(msg.content).toEqual([{ type: 'text', text: 'echo: hi sdk' }]);
      const stream = c.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'stream me' }] });
      const final = await stream.finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'echo: stream me' }]);
      expect(final.usage.output_tokens).toBeGreaterThan(0);
      const tool = await c.messages.create({
        model: MODEL,
        max_tokens: 100,
        tools: [weather],
        messages: [{ role: 'user', content: 'Paris' }],
      });
      expect(tool.stop_reason).toBe('tool_use');
      expect(tool.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { query: 'Paris' } });
    });

    it('counts tokens natively', async () => {
      const counted = await client(toAnthropic()).messages.countTokens({
        model: MODEL,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello there' }],
      });
      expect(counted.input_tokens).toBe(Math.ceil('Be brief. hello there'.length / 4));
      expect(anthropic.lastRequest!.path).toBe('/v1/messages/count_tokens');
    });

    it('logs the request with its usage', async () => {
      const msg = await client(toAnthropic(), { 'x-gateway-trace-id': 'trace-messages-native' }).messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'log me' }],
      });
      await expect
        .poll(
          async () =>
            (
              (await (await gw.fetch('/v1/logs?trace_id=trace-messages-native')).json()) as { data: Array<Record<string, unknown>> }
            ).data.filter((r) => r.trace_id === 'trace-messages-native').length,
          { timeout: 5000 },
        )
        .toBeGreaterThan(0);
      const rows = ((await (await gw.fetch('/v1/logs')).json()) as { data: Array<Record<string, unknown>> }).data.filter(
        (r) => r.trace_id === 'trace-messages-native',
      );
      expect(rows[0]).toMatchObject({
        endpoint: 'messages',
        provider: 'anthropic',
        status: 200,
        completion_tokens: msg.usage.output_tokens,
      });
    });
  });

  describe('to an OpenAI-compatible target: translated through the chat schema', () => {
    it('answers a message with text, stop reason and usage', async () => {
      const msg = await client(toOpenAI()).messages.create({
        model: 'gpt-4o',
        max_tokens: 50,
        system: 'Be brief.',
        stop_sequences: ['END'],
        metadata: { user_id: 'u-1' },
        messages: [{ role: 'user', content: 'hello translated' }],
      });
      expect(msg.type).toBe('message');
      expect(msg.role).toBe('assistant');
      expect(msg.content).toEqual([{ type: 'text', text: 'echo: hello translated', citations: null }]);
      expect(msg.stop_reason).toBe('end_turn');
      expect(msg.usage.input_tokens).toBeGreaterThan(0);
      expect(msg.usage.output_tokens).toBeGreaterThan(0);
      const seen = openai.lastRequest!;
      expect(seen.path).toBe('/v1/chat/completions');
      expect(seen.body).toMatchObject({
        model: 'gpt-4o',
        max_tokens: 50,
        stop: ['END'],
        user: 'u-1',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello translated' },
        ],
      });
    });

    it('maps sampling parameters (temperature, top_p; top_k dropped)', async () => {
      const res = await gw.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'x-gateway-config': toOpenAI(), 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o',
          max_tokens: 5,
          temperature: 0.5,
          top_p: 0.9,
          top_k: 40,
          messages: [{ role: 'user', content: 'x' }],
        }),
      });
      expect(res.status).toBe(200);
      const sent = openai.lastRequest!.body;
      expect(sent).toMatchObject({ temperature: 0.5, top_p: 0.9 });
      expect(sent.top_k).toBeUndefined();
    });

    it('streams in the Messages event format, assembled by the SDK', async () => {
      const stream = client(toOpenAI()).messages.stream({
        model: 'gpt-4o',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'stream translated' }],
      });
      const types: string[] = [];
      stream.on('streamEvent', (e) => types.push(e.type));
      const final = await stream.finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'echo: stream translated', citations: null }]);
      expect(final.stop_reason).toBe('end_turn');
      expect(final.usage.output_tokens).toBeGreaterThan(0);
      expect(types[0]).toBe('message_start');
      expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
      expect(types).toContain('content_block_start');
      expect(types).toContain('content_block_delta');
      expect(types).toContain('content_block_stop');
      expect(openai.lastRequest!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });

    it('maps tools both ways: a tool_use block, then a tool_result answered', async () => {
      const c = client(toOpenAI());
      const first = await c.messages.create({
        model: 'gpt-4o',
        max_tokens: 50,
        tools: [weather],
        tool_choice: { type: 'any' },
        messages: [{ role: 'user', content: 'Paris' }],
      });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b) => b.type === 'tool_use');
      expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { query: 'Paris' } });
      expect(openai.lastRequest!.body).toMatchObject({
        tool_choice: 'required',
        tools: [
          { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.input_schema } },
        ],
      });
      const second = await c.messages.create({
        model: 'gpt-4o',
        max_tokens: 50,
        tools: [weather],
        messages: [
          { role: 'user', content: 'Paris' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: 'sunny' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'tool said: sunny', citations: null }]);
      const sent = openai.lastRequest!.body.messages;
      expect(sent[1]).toMatchObject({
        role: 'assistant',
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ query: 'Paris' }) } }],
      });
      expect(sent[2]).toMatchObject({ role: 'tool', content: 'sunny' });
    });

    it('streams a tool call as tool_use with input_json_delta pieces', async () => {
      const stream = client(toOpenAI()).messages.stream({
        model: 'gpt-4o',
        max_tokens: 50,
        tools: [weather],
        messages: [{ role: 'user', content: 'Rome' }],
      });
      const final = await stream.finalMessage();
      expect(final.stop_reason).toBe('tool_use');
      expect(final.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { query: 'Rome' } }]);
    });

    it('sends images as image_url parts', async () => {
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const msg = await client(toOpenAI()).messages.create({
        model: 'gpt-4o',
        max_tokens: 50,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              { type: 'text', text: 'what is it' },
            ],
          },
        ],
      });
      expect(msg.content[0]).toMatchObject({ type: 'text', text: 'echo: what is it [images: 1]' });
      expect(openai.lastRequest!.body.messages[0].content[0]).toEqual({
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${png}` },
      });
    });

    it('estimates count_tokens when the target cannot count', async () => {
      const counted = await client(toOpenAI()).messages.countTokens({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hello there, how are you today?' }],
      });
      expect(counted.input_tokens).toBeGreaterThan(3);
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('bad input', () => {
    const post = (body: unknown, config = toOpenAI(), path = '/v1/messages') =>
      gw.fetch(path, {
        method: 'POST',
        headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('refuses a body without max_tokens, with the error shape and type "error"', async () => {
      const res = await post({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { type: string; error: Record<string, unknown> };
      expect(err.type).toBe('error');
      expect(err.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });
      expect(String(err.error.message)).toContain('max_tokens');
      expect(openai.requests).toHaveLength(0);
    });

    it('refuses a role chat has no equivalent for, empty messages, wrong types and invalid JSON', async () => {
      for (const body of [
        { model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'narrator', content: 'x' }] },
        {
          model: 'gpt-4o',
          max_tokens: 5,
          messages: [{ role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }],
        },
        { model: 'gpt-4o', max_tokens: 5, messages: [] },
        { model: 'gpt-4o', max_tokens: '5', messages: [{ role: 'user', content: 'x' }] },
        { model: 'gpt-4o', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] },
      ]) {
        const res = await post(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
      }
      const raw = await gw.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'x-gateway-config': toOpenAI(), 'content-type': 'application/json' },
        body: '{"model":',
      });
      expect(raw.status).toBe(400);
      expect(openai.requests).toHaveLength(0);
    });

    it('refuses a server tool and a block in the wrong turn when translating', async () => {
      const server = await post({
        model: 'gpt-4o',
        max_tokens: 5,
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(server.status).toBe(400);
      expect(((await server.json()) as { error: { param: string } }).error.param).toBe('tools[0].type');
      const wrong = await post({
        model: 'gpt-4o',
        max_tokens: 5,
        messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }],
      });
      expect(wrong.status).toBe(400);
      expect(openai.requests).toHaveLength(0);
    });

    it('needs the gateway key like every /v1 route', async () => {
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(401);
    });
  });
});
