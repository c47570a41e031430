import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway } from '../../helpers/gateway.js';
import { startFakeAnthropic, anthropicErrorBody, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const KEY = 'sk-ant-responses';
const MODEL = 'claude-sonnet-4-20250514';
const lookup: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'lookup',
  description: 'Looks a thing up',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  strict: false,
};

describe('Responses API run by the gateway over chat (openai SDK → gateway → Anthropic fake)', () => {
  let fake: FakeAnthropic;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let client: OpenAI;
  const config = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ provider: 'anthropic', api_key: KEY, custom_host: fake.url, ...extra });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    gw = await startGateway();
    client = gw.openai({ 'x-gateway-config': config() });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('creates a response from text input and instructions, maps usage, and stores it for retrieve and input_items', async () => {
    const res = await client.responses.create({
      model: MODEL,
      input: 'hello there',
      instructions: 'You are terse.',
      max_output_tokens: 200,
      temperature: 0.4,
      metadata: { team: 'a' },
    });
    expect(res.id).toMatch(/^resp_/);
    expect(res.object).toBe('response');
    expect(res.status).toBe('completed');
    expect(res.output_text).toBe('echo: hello there');
    expect(res.output).toHaveLength(1);
    expect(res.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'echo: hello there', annotations: [] }],
    });
    expect(res).toMatchObject({
      model: MODEL,
      instructions: 'You are terse.',
      max_output_tokens: 200,
      temperature: 0.4,
      top_p: 1,
      metadata: { team: 'a' },
      truncation: 'disabled',
      tool_choice: 'auto',
      parallel_tool_calls: true,
      previous_response_id: null,
      error: null,
      incomplete_details: null,
      text: { format: { type: 'text' } },
    });
    expect(res.usage).toMatchObject({
      output_tokens: 5,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(res.usage!.total_tokens).toBe(res.usage!.input_tokens + 5);
    expect(fake.lastRequest!.body).toMatchObject({
      model: MODEL,
      system: 'You are terse.',
      max_tokens: 200,
      temperature: 0.4,
      messages: [{ role: 'user', content: 'hello there' }],
    });

    const got = await client.responses.retrieve(res.id);
    expect(got).toEqual({ ...res, output_text: 'echo: hello there' });
    const items = await client.responses.inputItems.list(res.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] });
    expect((items.data[0] as { id: string }).id).toMatch(/^msg_/);
  });

  it('maps message inputs with an image part', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const res = await client.responses.create({
      model: MODEL,
      input: [
        { role: 'developer', content: 'Describe images.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'what is this' },
            { type: 'input_image', image_url: png, detail: 'auto' },
          ],
        },
      ],
    });
    expect(res.output_text).toBe('echo: what is this [images: 1]');
    const body = fake.lastRequest!.body;
    expect(body.system).toBe('Describe images.');
    expect(body.messages[0].content[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
  });

  it('runs a function tool round trip and a multi-turn conversation with previous_response_id', async () => {
    const first = await client.responses.create({ model: MODEL, input: 'find cats', tools: [lookup] });
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'lookup',
      arguments: JSON.stringify({ query: 'find cats' }),
      status: 'completed',
    });
    expect(call.call_id).toBeTruthy();
    expect(fake.lastRequest!.body.tools[0]).toMatchObject({ name: 'lookup', input_schema: lookup.parameters });

    const second = await client.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'three cats' }],
      tools: [lookup],
    });
    expect(second.output_text).toBe('tool said: three cats');
    expect(second.previous_response_id).toBe(first.id);
    // The second upstream request carries the first turn: the user text, the tool call and its result.
    const msgs = fake.lastRequest!.body.messages;
    expect(msgs[0]).toMatchObject({ role: 'user', content: 'find cats' });
    expect(msgs[1].role).toBe('assistant');
    expect(msgs[1].content).toContainEqual(
      expect.objectContaining({ type: 'tool_use', id: call.call_id, name: 'lookup', input: { query: 'find cats' } }),
    );
    expect(msgs[2].content).toContainEqual(expect.objectContaining({ type: 'tool_result', tool_use_id: call.call_id }));

    const third = await client.responses.create({
      model: MODEL,
      previous_response_id: second.id,
      input: 'and dogs?',
      instructions: 'New rules.',
    });
    expect(third.output_text).toBe('echo: and dogs?');
    const sent = fake.lastRequest!.body;
    expect(sent.system).toBe('New rules.');
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(sent.messages[3].content)).toContain('tool said: three cats');
  });

  it('streams with the Responses event types, and the streamed response is stored', async () => {
    const stream = await client.responses.create({ model: MODEL, input: 'stream me please', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const ev of stream) events.push(ev);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThanOrEqual(2);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.output_text).toBe('echo: stream me please');
    expect(done.response.usage!.output_tokens).toBeGreaterThan(0);
    const deltas = events
      .filter((e): e is OpenAI.Responses.ResponseTextDeltaEvent => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    expect(deltas).toBe('echo: stream me please');
    expect(fake.lastRequest!.body.stream).toBe(true);
    const got = await client.responses.retrieve(done.response.id);
    expect(got.status).toBe('completed');
    expect(got.output_text).toBe('echo: stream me please');
  });

  it('streams a function call with arguments deltas through the SDK stream helper', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'weather in Oslo', tools: [lookup] });
    const argDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
    const final = await stream.finalResponse();
    const call = final.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'lookup', arguments: JSON.stringify({ query: 'weather in Oslo' }), status: 'completed' });
    expect(argDeltas.join('')).toBe(call.arguments);
  });

  it('stores an incomplete response when the provider stops at max_output_tokens', async () => {
    const res = await client.responses.create({
      model: MODEL,
      input: 'a fairly long sentence that will not fit into sixteen tokens at all, no way at all, not even close to it',
      max_output_tokens: 16,
    });
    expect(res.status).toBe('incomplete');
    expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(res.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect((await client.responses.retrieve(res.id)).status).toBe('incomplete');
  });

  it('ends a stream the provider breaks off with response.failed and stores the failed response', async () => {
    const slow = await startFakeAnthropic({ apiKey: KEY, frameDelayMs: 15 });
    slow.failStreamWithErrorEvent({ afterFrames: 5, type: 'overloaded_error', message: 'Overloaded' });
    const viaSlow = gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: KEY, custom_host: slow.url }) });
    const stream = await viaSlow.responses.create({ model: MODEL, input: 'this will break', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const ev of stream) events.push(ev);
    const last = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
    expect(last.type).toBe('response.failed');
    expect(last.response.status).toBe('failed');
    expect(last.response.error).toMatchObject({ message: 'Overloaded' });
    expect(typeof last.response.error!.code).toBe('string');
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    const got = await client.responses.retrieve(last.response.id);
    expect(got.status).toBe('failed');
    expect(got.error).toEqual(last.response.error);
    await slow.close();
  });

  it('keeps the provider error status for a non-streamed failure and stores it as failed', async () => {
    fake.fail({ status: 529, body: anthropicErrorBody('overloaded_error', 'Overloaded') });
    const res = await gw.fetch('/v1/responses', {
      method: 'POST',
      headers: { 'x-gateway-config': config() },
      body: JSON.stringify({ model: MODEL, input: 'hi' }),
    });
    expect(res.status).toBe(529);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe('Overloaded');
    const id = res.headers.get('x-gateway-response-id')!;
    expect(id).toMatch(/^resp_/);
    const got = await client.responses.retrieve(id);
    expect(got.status).toBe('failed');
    expect(got.error).toMatchObject({ code: 'server_error', message: 'Overloaded' });
  });

  it('deletes a response; retrieve, input_items and delete then answer 404', async () => {
    const res = await client.responses.create({ model: MODEL, input: 'short lived' });
    const del = await gw.fetch(`/v1/responses/${res.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ id: res.id, object: 'response', deleted: true });
    await expect(client.responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.delete(res.id)).rejects.toMatchObject({ status: 404 });
    expect((await gw.fetch(`/v1/responses/${res.id}/input_items`)).status).toBe(404);
    // a later turn that names it fails
    await expect(client.responses.create({ model: MODEL, input: 'x', previous_response_id: res.id })).rejects.toMatchObject({
      status: 400,
      code: 'previous_response_not_found',
    });
  });

  it('does not store a response created with store: false', async () => {
    const res = await client.responses.create({ model: MODEL, input: 'ephemeral', store: false });
    expect(res.output_text).toBe('echo: ephemeral');
    await expect(client.responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
  });

  it('pages input items by cursor (after, limit, order)', async () => {
    const input = Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `part ${i}` }));
    const res = await client.responses.create({ model: MODEL, input });
    const page1 = await client.responses.inputItems.list(res.id, { limit: 2, order: 'asc' });
    expect(page1.data.map((i) => (i as { content: Array<{ text: string }> }).content[0]!.text)).toEqual(['part 0', 'part 1']);
    expect(page1.has_more).toBe(true);
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(res.id, { limit: 2, order: 'asc' }))
      all.push((item as { content: Array<{ text: string }> }).content[0]!.text);
    expect(all).toEqual(['part 0', 'part 1', 'part 2', 'part 3', 'part 4']);
    const desc = (await gw.fetch(`/v1/responses/${res.id}/input_items?limit=3`).then((r) => r.json())) as {
      object: string;
      data: Array<{ id: string; content: Array<{ text: string }> }>;
      first_id: string;
      last_id: string;
      has_more: boolean;
    };
    expect(desc.object).toBe('list');
    expect(desc.data.map((i: { content: Array<{ text: string }> }) => i.content[0]!.text)).toEqual(['part 4', 'part 3', 'part 2']);
    expect(desc.first_id).toBe(desc.data[0].id);
    expect(desc.last_id).toBe(desc.data[2].id);
    expect(desc.has_more).toBe(true);
  });

  it('truncation: disabled refuses input over the context window (400); auto drops the oldest turns', async () => {
    const big = 'lorem ipsum dolor sit amet '.repeat(1700); // ~8,500 tokens, over gpt-4's 8,192
    const small = gw.openai({ 'x-gateway-config': config({ override_params: { model: MODEL } }) });
    await expect(small.responses.create({ model: 'gpt-4', input: big })).rejects.toMatchObject({ status: 400, param: 'input' });
    expect(fake.requests).toHaveLength(0);
    const first = await small.responses.create({ model: 'gpt-4', input: 'lorem ipsum dolor sit amet '.repeat(1000) });
    const second = await small.responses.create({
      model: 'gpt-4',
      input: 'lorem ipsum dolor sit amet '.repeat(1000),
      previous_response_id: first.id,
      truncation: 'auto',
      max_output_tokens: 20000,
    });
    expect(second.status).toBe('completed');
    expect(second.truncation).toBe('auto');
    expect(fake.lastRequest!.body.messages).toHaveLength(1);
    await expect(
      small.responses.create({ model: 'gpt-4', input: 'x '.repeat(10), previous_response_id: second.id, truncation: 'disabled' }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
