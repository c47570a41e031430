import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** /metrics labels never grow with client input: 5,000 distinct model names leave it small. */
let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
  gw = await startGateway({ env: { GATEWAY_REQUEST_LOG: 'false' } });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

function chat(model: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gw.url + '/v1/chat/completions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': gw.adminKey,
      'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }),
      ...headers,
    },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('/metrics label bounds', () => {
  it(
    '5,000 requests with distinct random model names (answered by the provider) leave /metrics small and the scrape fast',
    { timeout: 240_000 },
    async () => {
      let next = 0;
      const statuses = new Map<number, number>();
      const worker = async () => {
        while (next < 5000) {
          const i = next++;
          // Every seventh name carries control characters (valid in a JSON string).
          const model = `m-${randomBytes(10).toString('hex')}${i % 7 === 0 ? '\n\u001b[2J\u0000' : ''}`;
          const res = await chat(model);
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      expect(statuses.get(200)).toBeGreaterThan(4000);
      const started = performance.now();
      const res = await fetch(gw.url + '/metrics');
      const text = await res.text();
      const ms = performance.now() - started;
      expect(res.status).toBe(200);
      expect(text.length).toBeLessThan(200_000);
      expect(ms).toBeLessThan(1000);
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(text).toMatch(/gateway_requests_total\{endpoint="chat",provider="openai",model="other",status="200"\} \d+/);
    },
  );

  it('an unknown provider name from a header never becomes a label', async () => {
    const res = await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'evil-provider-x',
        authorization: 'Bearer k',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    const text = await (await fetch(gw.url + '/metrics')).text();
    expect(text).not.toContain('evil-provider-x');
  });
});
