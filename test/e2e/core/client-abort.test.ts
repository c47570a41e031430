import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

// The non-streamed path reads upstream answers through a buffering handler and a lazy abort switch
// (no AbortSignal per request): a client that goes away must still abort the upstream call.
let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const headers = { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': '', authorization: 'Bearer k' };
const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'slow answer' }] });

describe('client disconnect on a non-streamed request', () => {
  it('aborts the upstream call while the provider has not answered yet', async () => {
    const before = fake.abortedResponses;
    fake.fail({ delayMs: 1500 });
    const controller = new AbortController();
    const pending = gw.fetch('/v1/chat/completions', { method: 'POST', headers: { ...headers, 'x-gateway-custom-host': fake.url }, body, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await expect(pending).rejects.toThrow();
    const t0 = Date.now();
    while (fake.abortedResponses === before && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(fake.abortedResponses).toBe(before + 1);
    expect(Date.now() - t0).toBeLessThan(1200);
  });

  it('still answers the next request normally (with a request timeout it uses a real signal)', async () => {
    const res = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { ...headers, 'x-gateway-custom-host': fake.url, 'x-gateway-request-timeout': '5000' }, body });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toContain('slow answer');
  });
});
