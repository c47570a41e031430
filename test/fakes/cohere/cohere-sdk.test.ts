import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CohereClientV2, CohereError } from 'cohere-ai';
import { startFakeCohere, type FakeCohere } from './server.js';

describe('Cohere fake, proved with cohere-ai CohereClientV2', () => {
  let fake: FakeCohere;
  let co: CohereClientV2;

  beforeAll(async () => {
    fake = await startFakeCohere({ apiKey: 'co-key' });
    co = new CohereClientV2({ token: 'co-key', environment: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  it('parses a chat answer with usage', async () => {
    const res = await co.chat({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'terse' },
        { role: 'user', content: 'hello cohere' },
      ],
    });
    expect(res.finishReason).toBe('COMPLETE');
    const block = res.message.content![0]!;
    expect(block.type === 'text' && block.text).toBe('echo: hello cohere [system: terse]');
    expect(res.usage!.tokens!.outputTokens).toBeGreaterThan(0);
    expect(res.usage!.billedUnits!.inputTokens).toBeGreaterThan(0);
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer co-key');
    expect(fake.lastRequest!.path).toBe('/v2/chat');
  });

  it('parses a stream of v2 events', async () => {
    const stream = await co.chatStream({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'one two three' }] });
    const types: string[] = [];
    let text = '';
    let finish: string | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'content-delta') text += ev.delta?.message?.content?.text ?? '';
      if (ev.type === 'message-end') finish = ev.delta?.finishReason;
    }
    expect(text).toBe('echo: one two three');
    expect(finish).toBe('COMPLETE');
    expect(types[0]).toBe('message-start');
    expect(types.at(-1)).toBe('message-end');
    expect(fake.lastRequest!.body.stream).toBe(true);
  });

  it('parses a tool call, non-streamed and streamed, and answers a tool result', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'weather',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
        },
      },
    ];
    const res = await co.chat({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Paris weather' }], tools });
    expect(res.finishReason).toBe('TOOL_CALL');
    const call = res.message.toolCalls![0]!;
    expect(call.function!.name).toBe('get_weather');
    expect(JSON.parse(call.function!.arguments!)).toEqual({ query: 'Paris weather' });
    expect(res.message.toolPlan).toBe('I will use the get_weather tool.');

    const stream = await co.chatStream({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Paris weather' }], tools });
    let args = '';
    let name = '';
    for await (const ev of stream) {
      if (ev.type === 'tool-call-start') name = ev.delta?.message?.toolCalls?.function?.name ?? '';
      if (ev.type === 'tool-call-delta') args += ev.delta?.message?.toolCalls?.function?.arguments ?? '';
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ query: 'Paris weather' });

    const after = await co.chat({
      model: 'command-a-03-2025',
      messages: [
        { role: 'user', content: 'Paris weather' },
        {
          role: 'assistant',
          toolPlan: 'I will use the get_weather tool.',
          toolCalls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.function!.arguments } }],
        },
        { role: 'tool', toolCallId: call.id, content: 'sunny, 21C' },
      ],
      tools,
    });
    const block = after.message.content![0]!;
    expect(block.type === 'text' && block.text).toBe('tool said: sunny, 21C');
  });

  it('embeds texts (v2 embed)', async () => {
    const res = await co.embed({ model: 'embed-v4.0', texts: ['a', 'b'], inputType: 'search_document', embeddingTypes: ['float'] });
    expect(res.embeddings.float).toHaveLength(2);
    expect(res.embeddings.float![0]).toHaveLength(8);
    expect(res.meta!.billedUnits!.inputTokens).toBe(2);
  });

  it('reranks documents', async () => {
    const res = await co.rerank({ model: 'rerank-v3.5', query: 'red apple', documents: ['green pear', 'red apple pie', 'apple'], topN: 2 });
    expect(res.results.map((r) => r.index)).toEqual([1, 2]);
    expect(res.results[0]!.relevanceScore).toBe(1);
  });

  it('surfaces errors with their status and body', async () => {
    const bad = new CohereClientV2({ token: 'wrong', environment: fake.url, maxRetries: 0 });
    const err = await bad.chat({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CohereError);
    expect((err as CohereError).statusCode).toBe(401);
    expect((err as CohereError).body).toMatchObject({ message: 'invalid api token' });
    fake.fail({ status: 429, body: { message: 'You are using a Trial key, which is limited to 10 API calls / minute.' } });
    const limited = await co.chat({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((limited as CohereError).statusCode).toBe(429);
  });
});
