import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { createLimitsCapability } from '../../../src/features/limits/limits-capability.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** Wednesday 2026-01-07 10:20:30 UTC. */
const T0 = Date.UTC(2026, 0, 7, 10, 20, 30);
const DAY = 86_400_000;
const COST_PER_TOKEN = 0.001;

type Json = Record<string, any>;

describe.each([
  { state: 'memory', env: {} as Record<string, string> },
  { state: 'redis', env: { REDIS_URL, REDIS_PREFIX: `gwtest-${randomId(6)}:` } },
])('usage limits enforced ($state counters, fake clock)', ({ env }) => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let caseId: string;
  const clock = new FakeClock(T0);
  let settled = 0;
  /** The alert webhook's receiver: the bodies POSTed to it. */
  const hooks: Json[] = [];
  let receiver: Server;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good', costPerToken: COST_PER_TOKEN });
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        hooks.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(text) });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts`;
    gw = await startGateway({
      clock,
      env: { ...env, GATEWAY_ALERT_WEBHOOK_URL: webhook },
      capabilities: [createLimitsCapability({ onSettled: () => settled++ })],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await new Promise((r) => receiver?.close(r));
  });
  beforeEach(() => {
    clock.set(T0);
    caseId = randomId(10);
  });

  async function policy(body: Json): Promise<Json> {
    const res = await gw.fetch('/v1/policies/usage-limits', {
      method: 'POST',
      body: JSON.stringify({ ...body, conditions: [{ key: 'metadata.case', value: caseId }] }),
    });
    const json = (await res.json()) as Json;
    expect(res.status, JSON.stringify(json)).toBe(201);
    return json;
  }

  /** Sends one chat request and waits until its usage is settled (when it was admitted). */
  async function chat(content = 'hello there', model = 'gpt-4o'): Promise<{ status: number; headers: Headers; body: Json }> {
    const before = settled;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk-good',
        'x-gateway-metadata': JSON.stringify({ case: caseId }),
      },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
    });
    const body = (await res.json()) as Json;
    if (res.status === 200) for (let i = 0; i < 200 && settled === before; i++) await new Promise((r) => setTimeout(r, 5));
    return { status: res.status, headers: res.headers, body };
  }

  async function fill(n: number): Promise<void> {
    for (let i = 0; i < n; i++) expect((await chat()).status).toBe(200);
  }

  function expectRefused(r: { status: number; headers: Headers; body: Json }, p: Json, retryAt: number | null): void {
    expect(r.status, JSON.stringify(r.body)).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'usage_limit_exceeded', type: 'rate_limit_error', param: null });
    expect(r.body.error.message).toContain(p.id);
    expect(r.headers.get('retry-after')).toBe(retryAt === null ? null : String(Math.ceil((retryAt - clock.now()) / 1000)));
  }

  it('weekly: N requests, then 429 until Monday 00:00 UTC, then a fresh window', async () => {
    const p = await policy({ type: 'requests', credit_limit: 3, periodic_reset: 'weekly' });
    await fill(3);
    const monday = Date.UTC(2026, 0, 12);
    expectRefused(await chat(), p, monday);
    clock.set(monday - 1000);
    expectRefused(await chat(), p, monday);
    clock.set(monday);
    await fill(3);
    expectRefused(await chat(), p, monday + 7 * DAY);
  });

  it('monthly: resets on the first of the next month', async () => {
    const p = await policy({ type: 'requests', credit_limit: 2, periodic_reset: 'monthly' });
    await fill(2);
    expectRefused(await chat(), p, Date.UTC(2026, 1, 1));
    clock.set(Date.UTC(2026, 1, 1));
    await fill(2);
    expectRefused(await chat(), p, Date.UTC(2026, 2, 1));
  });

  it('every N days: windows of N days from the creation day', async () => {
    const p = await policy({ type: 'requests', credit_limit: 1, periodic_reset_days: 2 });
    await fill(1);
    const end = Date.UTC(2026, 0, 9);
    expectRefused(await chat(), p, end);
    clock.set(end);
    await fill(1);
    expectRefused(await chat(), p, end + 2 * DAY);
  });

  it('a given next reset: one reset at that midnight, then the limit never resets', async () => {
    const p = await policy({ type: 'requests', credit_limit: 1, next_usage_reset_at: '2026-01-20T15:00:00Z' });
    const at = Date.UTC(2026, 0, 20);
    await fill(1);
    expectRefused(await chat(), p, at);
    clock.set(at + 1);
    await fill(1);
    expectRefused(await chat(), p, null);
    clock.set(at + 400 * DAY);
    expectRefused(await chat(), p, null);
  });

  it('without a schedule the limit never resets (no Retry-After)', async () => {
    const p = await policy({ type: 'requests', credit_limit: 1 });
    await fill(1);
    clock.set(T0 + 1000 * DAY);
    expectRefused(await chat(), p, null);
  });

  it('tokens: settles the answer usage; refused once used, overshoot at most one answer', async () => {
    const p = await policy({ type: 'tokens', credit_limit: 20, periodic_reset: 'weekly' });
    let admitted = 0;
    for (let i = 0; i < 10; i++) {
      const r = await chat();
      if (r.status === 200) admitted++;
      else break;
    }
    const ents = (await (await gw.fetch(`/v1/policies/usage-limits/${p.id}/entities`)).json()) as Json;
    const used = ents.data[0].used;
    // Each answer here uses the same tokens: the budget admits until it is used, then refuses.
    const perAnswer = used / admitted;
    expect(used).toBeGreaterThanOrEqual(20);
    expect(used - 20).toBeLessThan(perAnswer);
    expect(ents.data[0].status).toBe('exhausted');
    expectRefused(await chat(), p, Date.UTC(2026, 0, 12));
  });

  it('cost: counts the catalogue price of each answer (gpt-4o: $2.50 / $10 per million tokens), as its log row records it', async () => {
    const p = await policy({ type: 'cost', credit_limit: 0.0002, periodic_reset: 'monthly' });
    const first = await chat();
    expect(first.status).toBe(200);
    const cost = (first.body.usage.prompt_tokens * 2.5 + first.body.usage.completion_tokens * 10) / 1e6;
    const ents = (await (await gw.fetch(`/v1/policies/usage-limits/${p.id}/entities`)).json()) as Json;
    expect(ents.data[0].used).toBeCloseTo(cost, 12);
    await gw.gateway.deps.logs.flush();
    const row = await gw.gateway.deps.store.db
      .selectFrom('request_logs')
      .select(['cost', 'unit_prices'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(row.cost).toBeCloseTo(cost, 12);
    expect(JSON.parse(row.unit_prices!)).toMatchObject({ input_mtok: 2.5, output_mtok: 10, source: 'catalogue' });
    while ((await chat()).status === 200);
    expectRefused(await chat(), p, Date.UTC(2026, 1, 1));
  });

  it('cost: a model the catalogue does not price counts the dollars the provider reports', async () => {
    const p = await policy({ type: 'cost', credit_limit: 0.02, periodic_reset: 'monthly' });
    const first = await chat('hello there', 'fake-metered-model');
    expect(first.status).toBe(200);
    const cost = first.body.usage.total_tokens * COST_PER_TOKEN;
    const ents = (await (await gw.fetch(`/v1/policies/usage-limits/${p.id}/entities`)).json()) as Json;
    expect(ents.data[0].used).toBeCloseTo(cost, 9);
    while ((await chat('hello there', 'fake-metered-model')).status === 200);
    expectRefused(await chat('hello there', 'fake-metered-model'), p, Date.UTC(2026, 1, 1));
  });

  it('alert_threshold: one usage_limit.alert audit entry and one webhook POST per window and group', async () => {
    const p = await policy({ type: 'requests', credit_limit: 10, alert_threshold: 2, periodic_reset: 'weekly' });
    await fill(5);
    const alerts = async () =>
      ((await (await gw.fetch('/v1/audit-logs?action=usage_limit.alert')).json()) as Json).data.filter((e: Json) => e.resource_id === p.id);
    expect(await alerts()).toHaveLength(1);
    clock.set(Date.UTC(2026, 0, 12));
    await fill(2);
    const all = await alerts();
    expect(all).toHaveLength(2);
    expect(all.map((e: Json) => e.details.window_started_at).sort()).toEqual(['2026-01-05T00:00:00.000Z', '2026-01-12T00:00:00.000Z']);
    const posted = hooks.filter((h) => h.body.policy_id === p.id);
    expect(posted).toHaveLength(2);
    expect(posted[0]).toEqual({
      method: 'POST',
      type: 'application/json',
      body: { policy_id: p.id, group: {}, used: 2, credit_limit: 10, window_started_at: '2026-01-05T00:00:00.000Z' },
    });
  });
});
