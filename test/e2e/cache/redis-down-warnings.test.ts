import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { waitForRedis } from '../../../src/infra/state/redis-ready.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { freePort } from '../../helpers/ports.js';
import { startRedis, stopRedis } from '../../helpers/redis-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** While Redis is down every cached request and circuit check degrades; the log gets a few lines, not one per operation. */
describe('warnings while Redis is unreachable', () => {
  let port: number;
  let gw: TestGateway;
  let fake: FakeOpenAI;
  const lines: Array<{ level: number; msg: string; suppressed?: number }> = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    port = await freePort();
    await startRedis(port);
    const destination = new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c))), cb()) });
    gw = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `gwtest:${randomId(8)}:` },
      logger: createLogger('warn', { destination }),
    });
    await waitForRedis(gw.gateway.deps.state.redis!);
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    stopRedis(port);
  });

  it('N degraded requests produce at most a few warning lines', async () => {
    stopRedis(port);
    const config = JSON.stringify({
      provider: 'openai',
      api_key: 'sk',
      custom_host: fake.url,
      cache: { mode: 'simple' },
      cb_config: { failure_threshold: 3, cooldown_interval: 30000 },
    });
    const n = 40;
    for (let i = 0; i < n; i++) {
      const res = await gw.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'x-gateway-config': config },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
    const metrics = await (await gw.fetch('/metrics')).text();
    const degraded = metrics
      .split('\n')
      .filter((l) => l.startsWith('gateway_degraded_total{'))
      .reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    // Every degraded operation is counted…
    expect(degraded).toBeGreaterThanOrEqual(n);
    // …but logged once per kind.
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.length, JSON.stringify(warnings.map((w) => w.msg))).toBeLessThanOrEqual(6);
  });
});
