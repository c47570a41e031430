import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chatLines, jsonl, uploadInput, waitFor } from './batch-helpers.js';

let gw: TestGateway;
let fake: FakeOpenAI;
let vk: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway();
  const r = await gw.fetch('/v1/virtual-keys', {
    method: 'POST',
    body: JSON.stringify({ name: 'openai', provider: 'openai', key: 'sk-fake', config: { custom_host: fake.url } }),
  });
  expect(r.status).toBeLessThan(300);
  vk = ((await r.json()) as any).id;
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

describe('provider-native batches (24h with a provider that has a batch API)', () => {
  it('forwards create, retrieve, list and cancel with the provider ids, following the fake to completion', async () => {
    const client = gw.openai({ 'x-gateway-virtual-key': vk });
    const input = await uploadInput(client, chatLines(3));
    expect(input).not.toMatch(/^file-gw/);
    const b = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { a: 'b' },
    });
    expect(b.id).toMatch(/^batch_/);
    expect(b.id).not.toMatch(/^batch_gw/);
    expect(fake.requests.find((r) => r.path === '/v1/batches' && r.method === 'POST')!.body).toMatchObject({
      input_file_id: input,
      completion_window: '24h',
    });
    // Later calls without provider headers route by the mapping row (the batch remembers its virtual key).
    const bare = gw.openai();
    const done = await waitFor(bare, b.id, ['completed']);
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    const out = jsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(out.map((l) => l.custom_id)).toEqual(['req-0', 'req-1', 'req-2']);
    const list = await client.batches.list({ limit: 5 });
    expect(list.data.map((x) => x.id)).toContain(b.id);
    const c = await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await bare.batches.cancel(c.id)).status).toBe('cancelling');
    expect((await bare.batches.retrieve(c.id)).status).toBe('cancelling');
    expect((await bare.batches.retrieve(c.id)).status).toBe('cancelled');
  });

  it('runs immediate batches on the gateway even with a provider that has a batch API, reading the provider-held input file', async () => {
    const client = gw.openai({ 'x-gateway-virtual-key': vk });
    const input = await uploadInput(client, chatLines(5));
    const b = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
    });
    expect(b.id).toMatch(/^batch_gw/);
    const done = await waitFor(client, b.id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    const out = jsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(out[4].response.body.choices[0].message.content).toBe('echo: line-4');
  });

  it('keeps the provider status of a refused create', async () => {
    const err = await gw
      .openai({ 'x-gateway-virtual-key': vk })
      .batches.create({ input_file_id: 'file-unknown', endpoint: '/v1/chat/completions', completion_window: '24h' })
      .catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ param: 'input_file_id', provider: 'openai' });
  });
});
