/**
 * Hardening over HTTP: user-supplied regular expressions never hold the event loop, configs nested
 * too deep are refused with a path, and timeouts beyond what a Node.js timer can hold are refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';
import { readSettings } from '../../../src/data-plane/pipeline/settings.js';

const env = gatewayWithFakeOpenAI();
beforeEach(() => env.fake.reset());

const target = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: 'k', custom_host: env.fake.url, ...extra });

async function chat(config: unknown, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await env.gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': typeof config === 'string' ? config : JSON.stringify(config), ...headers },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const json = (await res.json()) as any;
  return { status: res.status, body: json, ms: performance.now() - started, path: res.headers.get('x-gateway-last-used-option-index') };
}

/** Latency of `GET /health` sampled every 20 ms while `work` runs; returns the worst one. */
async function worstHealthLatencyDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`${env.gw.url}/health`)).arrayBuffer();
    worst = Math.max(worst, performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  await work;
  return worst;
}

/** The fastest of three identical requests (a busy test machine adds noise; backtracking would take minutes every time). */
async function fastestOf3(run: () => Promise<{ status: number; ms: number; path: string | null }>) {
  const runs = [await run(), await run(), await run()];
  return runs.reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** 100,000 pseudo-random a/b characters: RE2's DFA gives up on SLOW below and its NFA takes tens of seconds. */
function noise(): string {
  let x = 1;
  let out = '';
  for (let i = 0; i < 100_000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += x & 65536 ? 'a' : 'b';
  }
  return out;
}
const SLOW = `[^z]*a${'[^z]'.repeat(100)}z`;
const EVIL = '^(a+)+$';
const EVIL_SUBJECT = `${'a'.repeat(40)}b`;

describe('user regular expressions', () => {
  const conditional = (pattern: string) => ({
    strategy: { mode: 'conditional', conditions: [{ query: { 'params.user': { $regex: pattern } }, then: 'match' }], default: 'other' },
    targets: [
      { name: 'match', ...target() },
      { name: 'other', ...target() },
    ],
  });
  const guarded = (rule: string) => target({ input_guardrails: [{ 'default.regexMatch': { rule }, deny: true }] });

  it('a catastrophic $regex in a conditional config answers within 100 ms and never delays /health', async () => {
    await chat(conditional(EVIL), { user: 'warm-up' });
    const r = await fastestOf3(() => chat(conditional(EVIL), { user: EVIL_SUBJECT }));
    expect(r.status).toBe(200);
    expect(r.path).toBe('config.targets[1]');
    expect(r.ms).toBeLessThan(100);
    expect((await chat(conditional(EVIL), { user: 'aaaa' })).path).toBe('config.targets[0]');
    // A pattern that stays slow even on RE2: the match is cut by its budget, the default target answers.
    const slow = chat(conditional(SLOW), { user: noise() });
    const worst = await worstHealthLatencyDuring(slow);
    const s = await slow;
    expect(s.status).toBe(200);
    expect(s.path).toBe('config.targets[1]');
    expect(s.ms).toBeLessThan(5_000);
    expect(worst).toBeLessThan(250);
  });

  it('a catastrophic guardrail rule answers within 100 ms; a slow one fails closed within its budget; /health is never delayed', async () => {
    await chat(guarded(EVIL), { messages: [{ role: 'user', content: 'warm-up' }] });
    const r = await fastestOf3(() => chat(guarded(EVIL), { messages: [{ role: 'user', content: EVIL_SUBJECT }] }));
    expect(r.status).toBe(446);
    expect(r.ms).toBeLessThan(100);
    expect((await chat(guarded(EVIL), { messages: [{ role: 'user', content: 'aaaa' }] })).status).toBe(200);
    const slow = chat(guarded(SLOW), { messages: [{ role: 'user', content: noise() }] });
    const worst = await worstHealthLatencyDuring(slow);
    const s = await slow;
    expect(s.status).toBe(446);
    expect(s.body.hook_results.before_request_hooks[0].checks[0].error).toMatch(/did not finish within/);
    expect(s.ms).toBeLessThan(5_000);
    expect(worst).toBeLessThan(250);
    expect(
      env.fake.requests.filter((q) => q.body?.messages?.[0]?.content !== 'aaaa' && q.body?.messages?.[0]?.content !== 'warm-up'),
    ).toHaveLength(0);
  });

  it('refuses a backreference or lookaround at validation, naming the path', async () => {
    const c = await chat(conditional('(a)\\1'));
    expect(c.status).toBe(400);
    expect(c.body.error).toMatchObject({ code: 'invalid_config', param: 'config.strategy.conditions[0].query' });
    expect(c.body.error.message).toMatch(/backreference/);
    const g = await chat(guarded('(?<=a)b'));
    expect(g.status).toBe(400);
    expect(g.body.error).toMatchObject({ code: 'invalid_config', param: 'config.input_guardrails[0]["default.regexMatch"].rule' });
    const stored = await env.gw.fetch('/v1/guardrails', {
      method: 'POST',
      body: JSON.stringify({ name: 'bad', checks: [{ id: 'default.regexMatch', parameters: { rule: '(x)\\1' } }] }),
    });
    expect(stored.status).toBe(400);
    expect(((await stored.json()) as any).error.message).toMatch(/checks\[0\]\.parameters\.rule/);
  });

  it('keeps flags working: /…/i literals in guardrails', async () => {
    const ok = await chat(target({ input_guardrails: [{ 'default.regexMatch': { rule: '/^HELLO/i' }, deny: true }] }), {
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(ok.status).toBe(200);
  });
});

describe('config nesting depth', () => {
  function nest(depth: number): Record<string, unknown> {
    let node: Record<string, unknown> = target();
    for (let i = 0; i < depth; i++) node = { strategy: { mode: 'single' }, targets: [node] };
    return node;
  }
  const tooDeep = `config${'.targets[0]'.repeat(10)}.targets`;

  it('routes through 10 levels of targets and refuses 11 and 300 with the path (inline and stored)', async () => {
    const ok = await chat(nest(10));
    expect(ok.status).toBe(200);
    expect(ok.path).toBe(`config${'.targets[0]'.repeat(10)}`);
    for (const depth of [11, 300]) {
      const r = await chat(nest(depth));
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_config', param: tooDeep });
      const stored = await env.gw.fetch('/v1/configs', {
        method: 'POST',
        body: JSON.stringify({ name: `deep-${depth}`, config: nest(depth) }),
      });
      expect(stored.status).toBe(400);
      expect(((await stored.json()) as any).error).toMatchObject({ code: 'invalid_config', param: tooDeep });
    }
  });
});

describe('timeouts', () => {
  const TOO_LONG = 2 ** 31;

  it('refuses timeouts a timer cannot hold, naming the field', async () => {
    const a = await chat(target({ request_timeout: TOO_LONG }));
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'invalid_config', param: 'config.request_timeout' });
    const b = await chat(target(), {}, { 'x-gateway-request-timeout': String(TOO_LONG) });
    expect(b.status).toBe(400);
    expect(b.body.error).toMatchObject({ code: 'invalid_request', param: 'x-gateway-request-timeout' });
    const c = await chat(target({ cb_config: { failure_threshold: 1, cooldown_interval: TOO_LONG } }));
    expect(c.status).toBe(400);
    expect(c.body.error).toMatchObject({ code: 'invalid_config', param: 'config.cb_config.cooldown_interval' });
    const d = await chat(target({ input_guardrails: [{ 'default.webhook': { webhookURL: 'http://127.0.0.1:1/', timeout: TOO_LONG } }] }));
    expect(d.status).toBe(400);
    expect(d.body.error.param).toBe('config.input_guardrails[0]["default.webhook"].timeout');
    expect((await chat(target({ request_timeout: TOO_LONG - 1 }))).status).toBe(200);
  });

  it('a Retry-After of 100000 s does not hold the request: the wait is capped by the request timeout', async () => {
    env.fake.fail({ status: 429, headers: { 'retry-after': '100000' } });
    const r = await chat(target({ request_timeout: 400, retry: { attempts: 1, use_retry_after_headers: true } }));
    expect(r.status).toBe(200);
    expect(r.ms).toBeGreaterThanOrEqual(380);
    expect(r.ms).toBeLessThan(3_000);
    expect(env.fake.requests).toHaveLength(2);
  });
});

describe('default upstream timeouts (no request_timeout)', () => {
  let short: TestGateway;
  beforeAll(async () => {
    short = await startGateway({ env: { GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '300', GATEWAY_UPSTREAM_BODY_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('cuts an upstream that stalls before its headers or in its body after the default', async () => {
    const header = { 'x-gateway-config': JSON.stringify(target()) };
    env.fake.fail({ delayMs: 3_000 });
    let t = performance.now();
    const res = await short.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: header,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(408);
    expect(((await res.json()) as any).error.code).toBe('request_timeout');
    expect(performance.now() - t).toBeLessThan(2_000);
    env.fake.fail({ pauseAfterChunks: { after: 1, ms: 3_000 } });
    t = performance.now();
    const stream = await short.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: header,
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'a b c d' }] }),
    });
    expect(stream.status).toBe(200);
    const text = await stream.text();
    expect(text).toMatch(/"error"/);
    expect(performance.now() - t).toBeLessThan(2_000);
  });

  it('refuses an upstream timeout setting a timer cannot hold', () => {
    expect(() => readSettings({ GATEWAY_UPSTREAM_BODY_TIMEOUT_MS: String(2 ** 31) })).toThrow(/timeout of 1 to 2147483647 ms/);
    expect(() => readSettings({ GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '0' })).toThrow(/timeout of 1 to 2147483647 ms/);
    expect(readSettings({}).upstreamBodyTimeoutMs).toBe(600_000);
  });
});
