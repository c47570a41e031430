import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId, uuid } from '../../../src/foundation/lib/ids.js';
import { windowOf } from '../../../src/features/limits/counter-store.js';
import { createLimitsCapability } from '../../../src/features/limits/limits-capability.js';
import { WINDOW_MS } from '../../../src/features/limits/policy-keys.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';

/** Wednesday 2026-01-07 10:20:30.250 UTC. */
const T0 = Date.UTC(2026, 0, 7, 10, 20, 30, 250);

type Json = Record<string, any>;
interface Answer {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

let gw: TestGateway;
let fake: FakeOpenAI;
let anthropic: FakeAnthropic;
const clock = new FakeClock(T0);
const counted: number[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant' });
  gw = await startGateway({ clock, capabilities: [createLimitsCapability({ onCounted: (n) => counted.push(n) })] });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await anthropic?.close();
});

/** Each test limits its own requests: policies carry a `metadata.case` condition unique to the test. */
let caseId: string;
beforeEach(() => {
  clock.set(T0);
  caseId = randomId(10);
});

async function policy(body: Json): Promise<Json> {
  const conditions = [{ key: 'metadata.case', value: caseId }, ...(body.conditions ?? [])];
  const res = await gw.fetch('/v1/policies/rate-limits', { method: 'POST', body: JSON.stringify({ ...body, conditions }) });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

async function send(
  path: string,
  body: Json,
  headers: Record<string, string> = {},
  metadata: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': gw.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': fake.url,
      authorization: 'Bearer sk-good',
      'x-gateway-metadata': JSON.stringify({ case: caseId, ...metadata }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = {};
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

const chat = (headers: Record<string, string> = {}, metadata: Record<string, string> = {}, extra: Json = {}) =>
  send(
    '/v1/chat/completions',
    { model: 'gpt-4o', messages: [{ role: 'user', content: 'count my tokens please' }], ...extra },
    headers,
    metadata,
  );

function expect429(a: Answer, policyId: string, retryAfter: number): void {
  expect(a.status, a.text).toBe(429);
  expect(a.body).toEqual({
    error: { message: expect.stringContaining(policyId), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
  });
  expect(a.headers.get('retry-after')).toBe(String(retryAfter));
  expect(a.headers.get('x-ratelimit-policy')).toBe(policyId);
  expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(a.headers.get('x-ratelimit-reset')).toBe(String(retryAfter));
}

async function waitCounted(n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (counted.length < n) {
    if (Date.now() > deadline) throw new Error(`token accounting did not happen (${counted.length}/${n})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Text of an SSE answer's content deltas and its usage chunk, if any. */
function readSse(text: string): { content: string; usage?: Json } {
  let content = '';
  let usage: Json | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    content += chunk.choices?.[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { content, usage };
}

describe('requests policies', () => {
  it('admit exactly the limit with headers, then refuse with 429 until the minute ends', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 3 });
    const before = fake.requests.length;
    for (const left of [2, 1, 0]) {
      const a = await chat();
      expect(a.status, a.text).toBe(200);
      expect(a.headers.get('x-ratelimit-policy')).toBe(p.id);
      expect(a.headers.get('x-ratelimit-limit')).toBe('3');
      expect(a.headers.get('x-ratelimit-remaining')).toBe(String(left));
      expect(a.headers.get('x-ratelimit-reset')).toBe('30');
    }
    expect429(await chat(), p.id, 30);
    expect429(await chat({}, {}, { stream: true }), p.id, 30);
    expect(fake.requests.length - before).toBe(3);
    clock.advance(29_749);
    expect429(await chat(), p.id, 1);
    clock.advance(1);
    const next = await chat();
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(next.headers.get('x-ratelimit-reset')).toBe('60');
  });

  it.each(['rph', 'rpd', 'rpw'] as const)('%s: refused until the window resets, admitted at the reset', async (unit) => {
    const p = await policy({ type: 'requests', unit, value: 1 });
    const { resetAt } = windowOf(T0, WINDOW_MS[unit]);
    const wait = Math.ceil((resetAt - T0) / 1000);
    expect((await chat()).status).toBe(200);
    expect429(await chat(), p.id, wait);
    clock.set(resetAt - 1);
    expect429(await chat(), p.id, 1);
    clock.set(resetAt);
    expect((await chat()).status).toBe(200);
  });

  it('answers carry the headers of the tightest matching policy', async () => {
    const roomy = await policy({ type: 'requests', unit: 'rpm', value: 10 });
    const tight = await policy({ type: 'requests', unit: 'rph', value: 3 });
    const a = await chat();
    expect(a.headers.get('x-ratelimit-policy')).toBe(tight.id);
    expect(a.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(a.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((windowOf(T0, WINDOW_MS.rph).resetAt - T0) / 1000)));
    await gw.fetch(`/v1/policies/rate-limits/${tight.id}`, { method: 'DELETE' });
    const b = await chat();
    expect(b.headers.get('x-ratelimit-policy')).toBe(roomy.id);
    expect(b.headers.get('x-ratelimit-remaining')).toBe('8');
  });

  it('a refused request is counted by no policy', async () => {
    const wide = await policy({ type: 'requests', unit: 'rpm', value: 5 });
    await policy({ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model', value: 'gpt-4o' }] });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    expect((await chat()).status).toBe(429);
    const other = await chat({}, {}, { model: 'gpt-4o-mini' });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-policy')).toBe(wide.id);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('policy updates apply at once; archived policies stop applying', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 1 });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    expect((await gw.fetch(`/v1/policies/rate-limits/${p.id}`, { method: 'PUT', body: JSON.stringify({ value: 2 }) })).status).toBe(200);
    const a = await chat();
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit')).toBe('2');
    expect((await chat()).status).toBe(429);
    await gw.fetch(`/v1/policies/rate-limits/${p.id}`, { method: 'DELETE' });
    const free = await chat();
    expect(free.status).toBe(200);
    expect(free.headers.get('x-ratelimit-policy')).toBeNull();
  });
});

describe('conditions', () => {
  it('model: only requests for that model count', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'model', value: 'gpt-4o-mini' }] });
    for (let i = 0; i < 2; i++) {
      const a = await chat();
      expect(a.status).toBe(200);
      expect(a.headers.get('x-ratelimit-policy')).toBeNull();
    }
    expect((await chat({}, {}, { model: 'gpt-4o-mini' })).status).toBe(200);
    expect429(await chat({}, {}, { model: 'gpt-4o-mini' }), p.id, 30);
  });

  it('endpoint_type: an embeddings policy leaves chat alone', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'endpoint_type', value: 'embedding' }] });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    const emb = () => send('/v1/embeddings', { model: 'text-embedding-3-small', input: 'hello' });
    expect((await emb()).status).toBe(200);
    expect429(await emb(), p.id, 30);
  });

  it('provider: known from x-gateway-provider or from the config before routing', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 2, conditions: [{ key: 'provider', value: 'openai' }] });
    const viaAnthropic = { 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.url, authorization: 'Bearer sk-ant' };
    for (let i = 0; i < 3; i++) expect((await chat(viaAnthropic)).headers.get('x-ratelimit-policy')).toBeNull();
    expect((await chat()).status).toBe(200);
    const config = {
      'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-good', custom_host: fake.url }),
      'x-gateway-provider': '',
    };
    const viaConfig = await chat(config);
    expect(viaConfig.status, viaConfig.text).toBe(200);
    expect(viaConfig.headers.get('x-ratelimit-remaining')).toBe('0');
    expect429(await chat(config), p.id, 30);
  });

  it('api_key and workspace_id (id or slug); a policy of another workspace does not apply', async () => {
    const created = await gw.fetch('/v1/api-keys', { method: 'POST', body: JSON.stringify({ name: 'svc', type: 'workspace-service' }) });
    const key = (await created.json()) as Json;
    const p = await policy({ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'api_key', value: key.id }] });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect((await chat({ 'x-gateway-api-key': key.key })).status).toBe(200);
    expect429(await chat({ 'x-gateway-api-key': key.key }), p.id, 30);

    caseId = randomId(10);
    const bySlug = await policy({ type: 'requests', unit: 'rpm', value: 1, conditions: [{ key: 'workspace_id', value: 'default' }] });
    expect((await chat()).status).toBe(200);
    expect429(await chat(), bySlug.id, 30);

    caseId = randomId(10);
    const deps = gw.gateway.deps;
    const otherWs = uuid();
    await deps.store.db
      .insertInto('workspaces')
      .values({
        id: otherWs,
        organisation_id: deps.runtime.current.defaultOrganisationId,
        name: 'Other',
        slug: `other-${caseId.toLowerCase()}`,
        status: 'active',
        settings: '{}',
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    await deps.runtime.changed();
    await policy({ type: 'requests', unit: 'rpm', value: 0, workspace_id: otherWs });
    expect((await chat()).status).toBe(200);
  });
});

describe('group_by', () => {
  it('metadata._user: each user has a budget; requests without the key share one', async () => {
    const p = await policy({ type: 'requests', unit: 'rpm', value: 1, group_by: [{ key: 'metadata._user' }] });
    expect((await chat({}, { _user: 'ann' })).status).toBe(200);
    expect((await chat({}, { _user: 'bob' })).status).toBe(200);
    expect429(await chat({}, { _user: 'ann' }), p.id, 30);
    expect429(await chat({}, { _user: 'bob' }), p.id, 30);
    expect((await chat()).status).toBe(200);
    expect429(await chat(), p.id, 30);
  });

  it('api_key: each gateway key has a budget', async () => {
    const created = await gw.fetch('/v1/api-keys', { method: 'POST', body: JSON.stringify({ name: 'svc2', type: 'workspace-service' }) });
    const key = (await created.json()) as Json;
    const p = await policy({ type: 'requests', unit: 'rpm', value: 2, group_by: [{ key: 'api_key' }] });
    for (let i = 0; i < 2; i++) expect((await chat()).status).toBe(200);
    expect429(await chat(), p.id, 30);
    for (let i = 0; i < 2; i++) expect((await chat({ 'x-gateway-api-key': key.key })).status).toBe(200);
    expect429(await chat({ 'x-gateway-api-key': key.key }), p.id, 30);
  });
});

describe('tokens policies', () => {
  it('count usage of non-streamed and streamed answers; a stream whose client did not ask for usage counts the usage the gateway asked for', async () => {
    const p = await policy({ type: 'tokens', unit: 'rpm', value: 100_000 });
    const start = counted.length;
    const first = await chat();
    expect(first.headers.get('x-ratelimit-policy')).toBe(p.id);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('100000');
    const u1 = first.body.usage.total_tokens as number;
    expect(u1).toBeGreaterThan(0);
    await waitCounted(start + 1);
    expect(counted[start]).toBe(u1);

    const withUsage = await chat({}, {}, { stream: true, stream_options: { include_usage: true } });
    expect(withUsage.headers.get('x-ratelimit-remaining')).toBe(String(100_000 - u1));
    const u2 = readSse(withUsage.text).usage!.total_tokens as number;
    await waitCounted(start + 2);
    expect(counted[start + 1]).toBe(u2);

    const body = { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'estimate these words for me' }] };
    const bare = await send('/v1/chat/completions', body);
    expect(bare.headers.get('x-ratelimit-remaining')).toBe(String(100_000 - u1 - u2));
    const sse = readSse(bare.text);
    expect(sse.usage).toBeUndefined();
    expect(sse.content).toBe('echo: estimate these words for me');
    await waitCounted(start + 3);
    // The gateway asked the provider for usage (stream_options.include_usage) and stripped the chunk from the client's stream.
    const r = reply(body);
    const u3 = r.promptTokens + r.completionTokens;
    expect(counted[start + 2]).toBe(u3);

    const last = await chat();
    expect(last.headers.get('x-ratelimit-remaining')).toBe(String(100_000 - u1 - u2 - u3));
  });

  it('count the usage a mapped provider stream reports even when the client did not ask for it', async () => {
    await policy({ type: 'tokens', unit: 'rpd', value: 1_000_000, conditions: [{ key: 'provider', value: 'anthropic' }] });
    const viaAnthropic = {
      'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant', custom_host: anthropic.url }),
      'x-gateway-provider': '',
    };
    const start = counted.length;
    const plain = await chat(viaAnthropic, {}, { model: 'claude-sonnet-4-20250514', max_tokens: 64 });
    expect(plain.status, plain.text).toBe(200);
    await waitCounted(start + 1);
    expect(counted[start]).toBe(plain.body.usage.total_tokens);
    const streamed = await chat(viaAnthropic, {}, { model: 'claude-sonnet-4-20250514', max_tokens: 64, stream: true });
    expect(streamed.status, streamed.text).toBe(200);
    expect(readSse(streamed.text).usage).toBeUndefined();
    await waitCounted(start + 2);
    expect(counted[start + 1]).toBe(plain.body.usage.total_tokens);
  });

  it('refuse new requests once the window budget is spent, until the window resets', async () => {
    const p = await policy({ type: 'tokens', unit: 'rpm', value: 5 });
    const start = counted.length;
    const first = await chat();
    expect(first.status).toBe(200);
    expect(first.body.usage.total_tokens).toBeGreaterThan(5);
    await waitCounted(start + 1);
    const refused = await chat();
    expect429(refused, p.id, 30);
    expect(refused.body.error.message).toContain('5 tokens per minute');
    clock.advance(30_000);
    expect((await chat()).status).toBe(200);
  });

  it('a failed request spends no tokens', async () => {
    const p = await policy({ type: 'tokens', unit: 'rpm', value: 1000 });
    const start = counted.length;
    fake.fail({ status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const failed = await chat();
    expect(failed.status).toBe(500);
    const ok = await chat();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-policy')).toBe(p.id);
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('1000');
    await waitCounted(start + 1);
    expect(counted.length).toBe(start + 1);
  });
});
