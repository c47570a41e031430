import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const KEY = 'sk-openai-responses';
const lookup: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'lookup',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
  strict: false,
};

describe('Responses API forwarded natively (openai SDK → gateway → OpenAI fake)', () => {
  let fake: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let client: OpenAI;
  const config = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ provider: 'openai', api_key: KEY, custom_host: fake.url, ...extra });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
    anthropic = await startFakeAnthropic({ apiKey: 'ak' });
    gw = await startGateway();
    client = gw.openai({ 'x-gateway-config': config() });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    fake.reset();
    anthropic.reset();
  });

  it('forwards create to /v1/responses unchanged and stores the answer for retrieve and input_items', async () => {
    const res = await client.responses.create({
      model: 'gpt-4o',
      input: 'hello native',
      instructions: 'Be brief.',
      metadata: { k: 'v' },
      user: 'u1',
    });
    expect(res.id).toMatch(/^resp_fake/);
    expect(res.output_text).toBe('echo: hello native');
    expect(res.usage!.total_tokens).toBe(res.usage!.input_tokens + res.usage!.output_tokens);
    const seen = fake.lastRequest!;
    expect(seen.path).toBe('/v1/responses');
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.body).toEqual({ model: 'gpt-4o', input: 'hello native', instructions: 'Be brief.', metadata: { k: 'v' }, user: 'u1' });
    expect(fake.requests).toHaveLength(1);

    const got = await client.responses.retrieve(res.id);
    expect(got.id).toBe(res.id);
    expect(got.output_text).toBe('echo: hello native');
    expect(got.status).toBe('completed');
    // served from the gateway's store: the fake saw no GET
    expect(fake.requests).toHaveLength(1);
    const items = await client.responses.inputItems.list(res.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello native' }] });
  });

  it('streams the provider events (SDK stream helper) and stores the terminal response', async () => {
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'stream natively' });
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('echo: stream natively');
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(fake.lastRequest!.body.stream).toBe(true);
    const got = await client.responses.retrieve(final.id);
    expect(got.output_text).toBe('echo: stream natively');
  });

  it('streams a function call natively with arguments deltas', async () => {
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'call it', tools: [lookup], stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const done = events.find(
      (e) => e.type === 'response.function_call_arguments.done',
    ) as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
    expect(done.arguments).toBe(JSON.stringify({ query: 'call it' }));
    const deltas = events
      .filter((e) => e.type === 'response.function_call_arguments.delta')
      .map((e) => (e as OpenAI.Responses.ResponseFunctionCallArgumentsDeltaEvent).delta);
    expect(deltas.join('')).toBe(done.arguments);
  });

  it('forwards previous_response_id of a native response as is', async () => {
    const first = await client.responses.create({ model: 'gpt-4o', input: 'first turn' });
    const second = await client.responses.create({ model: 'gpt-4o', input: 'second turn', previous_response_id: first.id });
    expect(second.output_text).toBe('echo: second turn');
    expect(fake.lastRequest!.body).toMatchObject({ previous_response_id: first.id, input: 'second turn' });
  });

  it('expands a gateway-run previous response into input items for the native host', async () => {
    const viaAnthropic = gw.openai({
      'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: 'ak', custom_host: anthropic.url }),
    });
    const first = await viaAnthropic.responses.create({ model: 'claude-sonnet-4-20250514', input: 'remember me' });
    const second = await client.responses.create({ model: 'gpt-4o', input: 'who am I?', previous_response_id: first.id });
    expect(second.output_text).toBe('echo: who am I?');
    expect(second.previous_response_id).toBe(first.id);
    const body = fake.lastRequest!.body;
    expect(body.previous_response_id).toBeUndefined();
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'remember me' }] },
      { type: 'message', role: 'assistant', content: 'echo: remember me' },
      { role: 'user', content: 'who am I?' },
    ]);
    // the stored second turn still names its predecessor
    expect((await client.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
  });

  it('applies the routing engine: a failing OpenAI target falls back to the next one', async () => {
    fake.fail({ status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: null } } });
    const fb = gw.openai({
      'x-gateway-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'openai', api_key: KEY, custom_host: fake.url },
          { provider: 'openai', api_key: KEY, custom_host: fake.url },
        ],
      }),
    });
    const res = await fb.responses.create({ model: 'gpt-4o', input: 'after a failure' }).withResponse();
    expect(res.data.output_text).toBe('echo: after a failure');
    expect(res.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(fake.requests).toHaveLength(2);
  });

  it('keeps the provider error status and body on a native failure', async () => {
    fake.fail({
      status: 429,
      body: { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } },
      headers: { 'retry-after': '1' },
    });
    await expect(client.responses.create({ model: 'gpt-4o', input: 'x' })).rejects.toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      message: expect.stringContaining('slow down'),
    });
  });

  it('runs over chat when a config mixes a native host with one that is not', async () => {
    const mixed = gw.openai({
      'x-gateway-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'openai', api_key: KEY, custom_host: fake.url },
          { provider: 'anthropic', api_key: 'ak', custom_host: anthropic.url },
        ],
      }),
    });
    const res = await mixed.responses.create({ model: 'gpt-4o', input: 'mixed' });
    expect(res.output_text).toBe('echo: mixed');
    expect(fake.lastRequest!.path).toBe('/v1/chat/completions');
  });

  it('does not store with store: false (retrieve answers 404 without asking the provider)', async () => {
    const res = await client.responses.create({ model: 'gpt-4o', input: 'not kept', store: false });
    await expect(client.responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
    expect(fake.requests).toHaveLength(1);
  });
});
