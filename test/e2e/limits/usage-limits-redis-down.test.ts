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

describe('usage limits when Redis becomes unreachable', () => {
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
    const row = text.split('\n').find((l) => l.startsWith('gateway_degraded_total{component="usage-limit"} '));
    return row ? Number(row.split(' ')[1]) : 0;
  };

  it('fails open (200, never 500 or a hang), entities answer 503, and enforcement resumes with Redis', async () => {
    const created = await gw.fetch('/v1/policies/usage-limits', {
      method: 'POST',
      body: JSON.stringify({ type: 'requests', credit_limit: 1, periodic_reset: 'weekly' }),
    });
    expect(created.status).toBe(201);
    const p = (await created.json()) as { id: string };
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);

    stopRedis(port);
    for (let i = 0; i < 3; i++) {
      const res = await chat();
      expect(res.status, await res.text()).toBe(200);
    }
    expect(await degraded()).toBeGreaterThanOrEqual(3);
    expect(logs.filter((l) => l.includes('usage-limit counters unreachable'))).toHaveLength(1);
    const ents = await gw.fetch(`/v1/policies/usage-limits/${p.id}/entities`);
    expect(ents.status).toBe(503);
    expect(((await ents.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');

    await startRedis(port);
    await waitForRedis(gw.gateway.deps.state.redis!, 10_000);
    // The restarted Redis is empty: the window counts from zero again.
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
  });
});
