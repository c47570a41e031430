import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';

let gw: TestGateway;
let a: FakeOpenAI;
let b: FakeOpenAI;
const clock = new FakeClock(Date.UTC(2026, 5, 1));

beforeAll(async () => {
  [a, b] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  gw = await startGateway({ clock });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([a?.close(), b?.close()]);
});
beforeEach(() => [a, b].forEach((f) => f.reset()));

const target = (f: FakeOpenAI) => ({ provider: 'openai', api_key: 'k', custom_host: f.url });

async function chat(config: unknown) {
  const res = await gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': JSON.stringify(config) },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  });
  return { status: res.status, body: (await res.json()) as any, path: res.headers.get('x-gateway-last-used-option-index') };
}

describe('circuit breaker (fake clock)', () => {
  it('opens after the threshold, skips the open target, lets one trial through after the cooldown, and closes on success', async () => {
    const config = {
      cb_config: { failure_threshold: 2, cooldown_interval: 30000 },
      strategy: { mode: 'fallback' },
      targets: [target(a), target(b)],
    };
    a.fail({ status: 500 }, { status: 500 });
    expect((await chat(config)).path).toBe('config.targets[1]');
    expect((await chat(config)).path).toBe('config.targets[1]');
    expect(a.requests).toHaveLength(2);
    // Open: a is not called any more.
    expect((await chat(config)).path).toBe('config.targets[1]');
    expect(a.requests).toHaveLength(2);
    clock.advance(29_000);
    await chat(config);
    expect(a.requests).toHaveLength(2);
    // Half-open: exactly one trial; it succeeds and closes the circuit.
    clock.advance(1_500);
    expect((await chat(config)).path).toBe('config.targets[0]');
    expect(a.requests).toHaveLength(3);
    expect((await chat(config)).path).toBe('config.targets[0]');
    expect(a.requests).toHaveLength(4);
  });

  it('a failed trial reopens the circuit', async () => {
    const config = {
      cb_config: { failure_threshold: 1, cooldown_interval: 30000 },
      strategy: { mode: 'fallback' },
      targets: [target(a), target(b)],
      name: 'reopen',
    };
    a.fail({ status: 503 });
    await chat(config);
    clock.advance(31_000);
    a.fail({ status: 503 });
    expect((await chat(config)).path).toBe('config.targets[1]');
    expect(a.requests).toHaveLength(2);
    await chat(config);
    expect(a.requests).toHaveLength(2);
  });

  it('counts only failure_status_codes when given, and answers 503 circuit_open when every target is open', async () => {
    const config = {
      cb_config: { failure_threshold: 1, cooldown_interval: 30000, failure_status_codes: [429] },
      ...target(a),
      name: 'single',
    };
    a.fail({ status: 500 });
    expect((await chat(config)).status).toBe(500);
    expect((await chat(config)).status).toBe(200);
    a.fail({ status: 429 });
    expect((await chat(config)).status).toBe(429);
    const open = await chat(config);
    expect(open.status).toBe(503);
    expect(open.body.error.code).toBe('circuit_open');
  });

  it('loadbalance skips an open target', async () => {
    const config = {
      cb_config: { failure_threshold: 1, cooldown_interval: 30000 },
      strategy: { mode: 'loadbalance' },
      targets: [target(a), target(b)],
      name: 'lb',
    };
    a.fail({ status: 500 }, { status: 500 }, { status: 500 });
    for (let i = 0; i < 12; i++) await chat(config);
    expect(a.requests.length).toBe(1);
    expect(b.requests.length).toBe(11);
  });
});
