import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { cacheCapability } from '../../../src/features/cache/cache-capability.js';
import { ask, cacheConfig, chat, chatCalls } from './cache-helpers.js';

let gw: TestGateway;
let fake: FakeOpenAI;
const cache = cacheCapability();

beforeAll(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway({ capabilities: [cache] });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

let n = 0;
const fresh = (label: string) => `${label} #${++n} ${Math.random()}`;
const client = () => gw.openai({ 'x-gateway-config': cacheConfig(fake, { mode: 'simple' }) }, { apiKey: 'sk-a' });
const messages = (text: string): OpenAI.ChatCompletionMessageParam[] => [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: text },
];

/** Streams through the SDK; returns the text, usage, finish reason, chunk count and cache status. */
async function streamed(text: string, opts: { usage?: boolean } = {}) {
  const { data: stream, response } = await client()
    .chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: messages(text),
      ...(opts.usage ? { stream_options: { include_usage: true } } : {}),
    })
    .withResponse();
  let content = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  let finish: string | null | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    content += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return {
    content,
    usage,
    finish,
    chunks,
    cache: response.headers.get('x-gateway-cache-status'),
    type: response.headers.get('content-type'),
  };
}

describe('streams and the cache', () => {
  it('stores a streamed miss once complete and replays it as an SSE stream the openai SDK parses', async () => {
    const text = fresh('stream me');
    const miss = await streamed(text, { usage: true });
    expect(miss).toMatchObject({ cache: 'MISS', content: `echo: ${text}`, finish: 'stop' });
    await cache.settle();
    const hit = await streamed(text, { usage: true });
    expect(hit.cache).toBe('HIT');
    expect(hit.type).toContain('text/event-stream');
    expect(hit.content).toBe(`echo: ${text}`);
    expect(hit.finish).toBe('stop');
    expect(hit.usage).toEqual(miss.usage);
    expect(chatCalls(fake)).toBe(1);
  });

  it('ends a replay with [DONE] and drops the usage chunk when the client did not ask for it', async () => {
    const q = ask(fresh('raw frames'));
    await chat(gw, cacheConfig(fake, { mode: 'simple' }), q);
    await cache.settle();
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': cacheConfig(fake, { mode: 'simple' }), authorization: 'Bearer sk-a' },
      body: JSON.stringify({ ...q, stream: true }),
    });
    expect(res.headers.get('x-gateway-cache-status')).toBe('HIT');
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id)).toBe(true);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
  });

  it('answers a non-streamed request with the JSON assembled from a stored stream', async () => {
    const text = fresh('stream then json');
    await streamed(text, { usage: true });
    await cache.settle();
    const hit = await client()
      .chat.completions.create({ model: 'gpt-4o', messages: messages(text) })
      .withResponse();
    expect(hit.response.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(hit.data.object).toBe('chat.completion');
    expect(hit.data.choices[0]!.message).toMatchObject({ role: 'assistant', content: `echo: ${text}` });
    expect(hit.data.choices[0]!.finish_reason).toBe('stop');
    expect(hit.data.usage?.total_tokens).toBeGreaterThan(0);
    expect(chatCalls(fake)).toBe(1);
  });

  it('replays a stored tool call so that the SDK rebuilds the same call', async () => {
    const text = fresh('tool');
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const first = await client().chat.completions.create({ model: 'gpt-4o', tools, messages: messages(text) });
    await cache.settle();
    const runner = client().chat.completions.stream({ model: 'gpt-4o', tools, messages: messages(text) });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls).toEqual(first.choices[0]!.message.tool_calls);
    expect(chatCalls(fake)).toBe(1);
  });

  it('stores a streamed tool call assembled from its argument deltas', async () => {
    const text = fresh('stream tool');
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    await client()
      .chat.completions.stream({ model: 'gpt-4o', tools, messages: messages(text) })
      .finalChatCompletion();
    await cache.settle();
    const hit = await client()
      .chat.completions.create({ model: 'gpt-4o', tools, messages: messages(text) })
      .withResponse();
    expect(hit.response.headers.get('x-gateway-cache-status')).toBe('HIT');
    const call = hit.data.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ query: text });
    expect(hit.data.choices[0]!.message.content).toBeNull();
  });

  it('does not store a stream that broke off', async () => {
    const text = fresh('broken');
    fake.fail({ dieAfterChunks: 2 });
    await expect(streamed(text)).rejects.toThrow();
    await cache.settle();
    const again = await streamed(text);
    expect(again.cache).toBe('MISS');
    expect(again.content).toBe(`echo: ${text}`);
    expect(chatCalls(fake)).toBe(2);
  });
});
