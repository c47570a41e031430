import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/lib/ids.js';
import { createLimitsCapability } from '../../../src/limits/limits-capability.js';
import { waitForRedis } from '../../../src/state/redis.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A throw-away redis-server of this test only (so it can be stopped without touching the shared one). */
async function startRedis(port: number): Promise<void> {
  execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
  for (let i = 0; i < 100; i++) {
    try {
      if (execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).trim() === 'PONG') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not start`);
}

function stopRedis(port: number): void {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

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
    gw = await startGateway({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `gwtest:${randomId(8)}:` }, capabilities: [createLimitsCapability()], logger });
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
    const created = await gw.fetch('/v1/policies/rate-limits', { method: 'POST', body: JSON.stringify({ type: 'requests', unit: 'rpd', value: 1 }) });
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
