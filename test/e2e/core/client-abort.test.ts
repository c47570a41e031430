import { describe, expect, it } from 'vitest';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';

// The non-streamed path reads upstream answers through a buffering handler and a lazy abort switch
// (no AbortSignal per request): a client that goes away must still abort the upstream call.
const env = gatewayWithFakeOpenAI();

const headers = { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': '', authorization: 'Bearer k' };
const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'slow answer' }] });

describe('client disconnect on a non-streamed request', () => {
  it('aborts the upstream call while the provider has not answered yet, and logs the request as 499', async () => {
    const before = env.fake.abortedResponses;
    env.fake.fail({ delayMs: 1500 });
    const traceId = `closed-early-${Date.now()}`;
    const controller = new AbortController();
    const pending = env.gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { ...headers, 'x-gateway-custom-host': env.fake.url, 'x-gateway-trace-id': traceId },
      body,
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await expect(pending).rejects.toThrow();
    const t0 = Date.now();
    while (env.fake.abortedResponses === before && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(env.fake.abortedResponses).toBe(before + 1);
    expect(Date.now() - t0).toBeLessThan(1200);
    // The attempt names the client's abort `client_closed_request` (a bare abort error would read 502).
    let rows: Array<{ status: number }> = [];
    while (rows.length === 0 && Date.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      rows = ((await (await env.gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as { data: typeof rows }).data;
    }
    expect(rows.map((r) => r.status)).toEqual([499]);
  });

  it('still answers the next request normally (with a request timeout it uses a real signal)', async () => {
    const res = await env.gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { ...headers, 'x-gateway-custom-host': env.fake.url, 'x-gateway-request-timeout': '5000' },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toContain(
      'slow answer',
    );
  });
});
