import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startFakeOpenAI, type FakeOpenAI } from './server.js';

let fake: FakeOpenAI;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(() => fake.close());

describe('the OpenAI fake speaks the OpenAI wire format (proven with the openai SDK)', () => {
  it('chat, stream with usage, tool calls, embeddings, completions, models', async () => {
    const c = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(c.choices[0]!.message.content).toBe('echo: hi');
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'a b' }],
    });
    let text = '';
    let total = 0;
    for await (const ch of stream) {
      text += ch.choices[0]?.delta.content ?? '';
      total = ch.usage?.total_tokens ?? total;
    }
    expect(text).toBe('echo: a b');
    expect(total).toBeGreaterThan(0);
    const tool = await client.chat.completions
      .stream({
        model: 'gpt-4o',
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        messages: [{ role: 'user', content: 'x' }],
      })
      .finalChatCompletion();
    expect(tool.choices[0]!.message.tool_calls).toHaveLength(1);
    expect((await client.embeddings.create({ model: 'e', input: 'x' })).data[0]!.embedding).toHaveLength(8);
    expect((await client.completions.create({ model: 'i', prompt: 'p' })).choices[0]!.text).toBe(' echo: p');
    expect((await client.models.list()).data.map((m) => m.id)).toContain('gpt-4o');
  });

  it('errors as OpenAI does', async () => {
    const bad = new OpenAI({ baseURL: fake.url, apiKey: 'wrong', maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'm', messages: [] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    fake.fail({ status: 429, body: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } } });
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe('rate_limit_exceeded');
  });
});
