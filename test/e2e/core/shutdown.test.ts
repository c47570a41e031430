import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { SseDecoder } from '../../../src/foundation/lib/sse.js';

let gw: GatewayProcess;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ frameDelayMs: 100 });
  gw = await spawnGateway({});
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await fake?.close();
});

describe('graceful shutdown', () => {
  it('SIGTERM lets an in-flight stream finish, refuses new work, and exits 0', async () => {
    const res = await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer k',
      },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'one two three four five six seven eight' }] }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    gw.child.kill('SIGTERM');
    const sse = new SseDecoder();
    const events = [...sse.push(first.value!)];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(...sse.push(value));
    }
    expect(events[events.length - 1]!.data).toBe('[DONE]');
    const text = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('echo: one two three four five six seven eight');
    expect(await gw.exited).toBe(0);
    await expect(fetch(gw.url + '/health')).rejects.toThrow();
  });
});
