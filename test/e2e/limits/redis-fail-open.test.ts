import { freePort } from '../../helpers/ports.js';
import { startRedis, stopRedis } from '../../helpers/redis-server.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { createLimitsCapability } from '../../../src/features/limits/limits-capability.js';
import { waitForRedis } from '../../../src/infra/state/redis-ready.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

describe('rate limits when Redis becomes unreachable', () => {
  let port: number;
  let gw: TestGateway;
  let fake: FakeOpenAI;
  const logs: string[] = [];
  const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) }));

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    port = await freePort();
    await startRedis(port);
    gw = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `gwtest:${randomId(8)}:` },
      capabilities: [createLimitsCapability()],
      logger,
    });
    await waitForRedis(gw.gateway.deps.state.redis!);
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    stopRedis(port);
  });

  const chat = () =>
    gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.url, authorization: 'Bearer sk' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const degraded = async () => {
    const text = await (await gw.fetch('/metrics')).text();
    const row = text.split('\n').find((l) => l.startsWith('gateway_degraded_total{component="rate-limit"} '));
    return row ? Number(row.split(' ')[1]) : 0;
  };

  it('fails open (200, no 500) with a metric and a log line, and enforces again once Redis is back', async () => {
    const created = await gw.fetch('/v1/policies/rate-limits', {
      method: 'POST',
      body: JSON.stringify({ type: 'requests', unit: 'rpd', value: 1 }),
    });
    expect(created.status).toBe(201);
    const first = await chat();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await chat()).status).toBe(429);
    expect(await degraded()).toBe(0);

    stopRedis(port);
    for (let i = 0; i < 3; i++) {
      const res = await chat();
      expect(res.status, await res.text()).toBe(200);
      expect(res.headers.get('x-ratelimit-policy')).toBeNull();
    }
    expect(await degraded()).toBeGreaterThanOrEqual(3);
    const lines = logs.filter((l) => l.includes('rate-limit counters unreachable'));
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!).level).toBe(40);

    await startRedis(port);
    await waitForRedis(gw.gateway.deps.state.redis!, 10_000);
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
  });
});
