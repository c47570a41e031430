import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

let gw: TestGateway;
let a: FakeOpenAI;
let b: FakeOpenAI;
let c: FakeOpenAI;

beforeAll(async () => {
  [a, b, c] = await Promise.all([
    startFakeOpenAI({ models: ['a'] }),
    startFakeOpenAI({ models: ['b'] }),
    startFakeOpenAI({ models: ['c'] }),
  ]);
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([a, b, c].map((f) => f?.close()));
});
beforeEach(() => [a, b, c].forEach((f) => f.reset()));

const target = (f: FakeOpenAI, extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: 'k', custom_host: f.url, ...extra });
const msg = [{ role: 'user' as const, content: 'hi' }];

async function chat(config: unknown, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) {
  const res = await gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': JSON.stringify(config), ...headers },
    body: JSON.stringify({ model: 'gpt-4o', messages: msg, ...body }),
  });
  return {
    res,
    body: (await res.json()) as any,
    path: res.headers.get('x-gateway-last-used-option-index'),
    retries: res.headers.get('x-gateway-retry-attempt-count'),
  };
}

describe('fallback', () => {
  it('moves to the next target on any failure without on_status_codes', async () => {
    a.fail({ status: 500 });
    const r = await chat({ strategy: { mode: 'fallback' }, targets: [target(a), target(b)] });
    expect(r.res.status).toBe(200);
    expect(r.path).toBe('config.targets[1]');
    expect(r.res.headers.get('x-gateway-provider')).toBe('openai');
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
  });

  it('with on_status_codes, only listed statuses fall back; others are returned with status kept', async () => {
    a.fail({ status: 400, body: { error: { message: 'bad thing', type: 'invalid_request_error', code: 'x' } } });
    const r = await chat({ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [target(a), target(b)] });
    expect(r.res.status).toBe(400);
    expect(r.body.error).toMatchObject({ message: 'bad thing', provider: 'openai' });
    expect(b.requests).toHaveLength(0);
    a.fail({ status: 429 });
    const r2 = await chat({ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [target(a), target(b)] });
    expect(r2.res.status).toBe(200);
    expect(r2.path).toBe('config.targets[1]');
  });

  it('falls back on connection refused and on timeouts, and reports the last failure when all fail', async () => {
    const r = await chat({ strategy: { mode: 'fallback' }, targets: [target(a, { custom_host: 'http://127.0.0.1:1/v1' }), target(b)] });
    expect(r.path).toBe('config.targets[1]');
    a.fail({ delayMs: 2000 });
    const r2 = await chat({ strategy: { mode: 'fallback' }, targets: [target(a, { request_timeout: 300 }), target(b)] });
    expect(r2.res.status).toBe(200);
    expect(r2.path).toBe('config.targets[1]');
    a.fail({ status: 500 });
    b.fail({ status: 502 });
    const r3 = await chat({ strategy: { mode: 'fallback' }, targets: [target(a), target(b)] });
    expect(r3.res.status).toBe(502);
    expect(r3.path).toBe('config.targets[1]');
  });

  it('falls back when a stream stalls before its first chunk', async () => {
    a.fail({ stallBeforeFirstChunkMs: 1000 });
    const client = gw.openai({
      'x-gateway-config': JSON.stringify({ strategy: { mode: 'fallback' }, request_timeout: 200, targets: [target(a), target(b)] }),
    });
    const res = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: msg }).withResponse();
    let text = '';
    for await (const ch of res.data) text += ch.choices[0]?.delta.content ?? '';
    expect(text).toBe('echo: hi');
    expect(res.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });
});

describe('timeouts', () => {
  it('answers 408 request_timeout when the only target is too slow (config or header)', async () => {
    a.fail({ delayMs: 500 });
    const r = await chat({ ...target(a), request_timeout: 100 });
    expect(r.res.status).toBe(408);
    expect(r.body.error.code).toBe('request_timeout');
    a.fail({ delayMs: 500 });
    const r2 = await chat(target(a), { 'x-gateway-request-timeout': '100' });
    expect(r2.res.status).toBe(408);
    const r3 = await chat(target(a), { 'x-gateway-request-timeout': 'soon' });
    expect(r3.res.status).toBe(400);
    expect(r3.body.error.param).toBe('x-gateway-request-timeout');
  });

  it('ends a stream that outlives the timeout with an error frame', async () => {
    a.fail({ pauseAfterChunks: { after: 2, ms: 600 } });
    const client = gw.openai({ 'x-gateway-config': JSON.stringify({ ...target(a), request_timeout: 300 }) });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'a b c d' }],
    });
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e) => e);
    expect(String(err?.message)).toMatch(/timeout/i);
  });
});

describe('retry', () => {
  it('retries listed statuses and reports the attempt count', async () => {
    a.fail({ status: 503 }, { status: 503 });
    const r = await chat({ ...target(a), retry: { attempts: 3 } });
    expect(r.res.status).toBe(200);
    expect(r.retries).toBe('2');
    expect(a.requests).toHaveLength(3);
  });

  it('stops after attempts and does not retry unlisted statuses', async () => {
    a.fail({ status: 503 }, { status: 503 }, { status: 503 });
    const r = await chat({ ...target(a), retry: { attempts: 2 } });
    expect(r.res.status).toBe(503);
    expect(r.retries).toBe('2');
    a.reset();
    a.fail({ status: 400 });
    const r2 = await chat({ ...target(a), retry: { attempts: 2 } });
    expect(r2.res.status).toBe(400);
    expect(a.requests).toHaveLength(1);
    a.reset();
    a.fail({ status: 500 });
    const r3 = await chat({ ...target(a), retry: { attempts: 2, on_status_codes: [] } });
    expect(r3.res.status).toBe(500);
    expect(a.requests).toHaveLength(1);
  });

  it('honours retry-after-ms and Retry-After when use_retry_after_headers is on', async () => {
    a.fail({ status: 429, headers: { 'retry-after-ms': '300' } });
    const t0 = Date.now();
    const r = await chat({ ...target(a), retry: { attempts: 1, use_retry_after_headers: true } });
    expect(r.res.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    a.fail({ status: 429, headers: { 'retry-after': '1' } });
    const t1 = Date.now();
    await chat({ ...target(a), retry: { attempts: 1, use_retry_after_headers: true } });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(950);
  });

  it('children inherit the parent retry unless they set their own', async () => {
    a.fail({ status: 503 });
    b.fail({ status: 503 });
    const r = await chat({
      retry: { attempts: 1 },
      strategy: { mode: 'fallback' },
      targets: [target(a), target(b, { retry: { attempts: 0 } }), target(c)],
    });
    expect(r.res.status).toBe(200);
    expect(r.path).toBe('config.targets[0]');
    expect(a.requests).toHaveLength(2);
    a.fail({ status: 503 }, { status: 503 });
    b.fail({ status: 503 });
    const r2 = await chat({
      retry: { attempts: 1 },
      strategy: { mode: 'fallback' },
      targets: [target(a), target(b, { retry: { attempts: 0 } }), target(c)],
    });
    expect(r2.path).toBe('config.targets[2]');
    expect(b.requests).toHaveLength(1);
  });
});

describe('loadbalance', () => {
  it('splits traffic by weight within a statistical bound over 1,000 draws; weight 0 is never chosen', async () => {
    const config = {
      strategy: { mode: 'loadbalance' },
      targets: [target(a, { weight: 1 }), target(b, { weight: 3 }), target(c, { weight: 0 })],
    };
    const header = JSON.stringify(config);
    const counts: Record<string, number> = {};
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, () =>
          gw
            .fetch('/v1/chat/completions', {
              method: 'POST',
              headers: { 'x-gateway-config': header },
              body: JSON.stringify({ model: 'm', messages: msg }),
            })
            .then(async (r) => {
              await r.arrayBuffer();
              return r.headers.get('x-gateway-last-used-option-index')!;
            }),
        ),
      );
      for (const p of batch) counts[p] = (counts[p] ?? 0) + 1;
    }
    // Binomial(1000, 0.25): sd ≈ 13.7; ±5 sd.
    expect(counts['config.targets[0]']).toBeGreaterThan(250 - 70);
    expect(counts['config.targets[0]']).toBeLessThan(250 + 70);
    expect(counts['config.targets[1]']).toBe(1000 - counts['config.targets[0]']!);
    expect(counts['config.targets[2]']).toBeUndefined();
  });
});

describe('conditional', () => {
  const config = () => ({
    strategy: {
      mode: 'conditional',
      conditions: [
        { query: { 'metadata.plan': 'pro' }, then: 'big' },
        { query: { $and: [{ 'params.model': { $regex: '^small' } }, { 'url.pathname': '/v1/chat/completions' }] }, then: 'small' },
      ],
      default: 'cheap',
    },
    targets: [
      { name: 'big', ...target(a) },
      { name: 'small', ...target(b) },
      { name: 'cheap', ...target(c) },
    ],
  });
  it('routes by metadata, params and url, else the default', async () => {
    expect((await chat(config(), { 'x-gateway-metadata': JSON.stringify({ plan: 'pro' }) })).path).toBe('config.targets[0]');
    expect((await chat(config(), {}, { model: 'small-1' })).path).toBe('config.targets[1]');
    expect((await chat(config())).path).toBe('config.targets[2]');
    const bad = await chat(config(), { 'x-gateway-metadata': '{"plan": 3}' });
    expect(bad.res.status).toBe(400);
    expect(bad.body.error.param).toBe('x-gateway-metadata');
  });
});

describe('nesting and inheritance', () => {
  it('walks three levels and reports the answering path', async () => {
    a.fail({ status: 500 });
    const config = {
      strategy: { mode: 'fallback' },
      override_params: { temperature: 0.3 },
      targets: [
        {
          strategy: { mode: 'loadbalance' },
          override_params: { model: 'nested-model' },
          targets: [{ strategy: { mode: 'fallback' }, targets: [target(a), target(b, { override_params: { top_p: 0.5 } })] }],
        },
        target(c),
      ],
    };
    const r = await chat(config, {}, { temperature: 1 });
    expect(r.res.status).toBe(200);
    expect(r.path).toBe('config.targets[0].targets[0].targets[1]');
    expect(b.lastRequest!.body).toMatchObject({ model: 'nested-model', temperature: 0.3, top_p: 0.5 });
    expect(c.requests).toHaveLength(0);
  });

  it('single mode uses its target; passthrough takes the provider from the request', async () => {
    expect((await chat({ strategy: { mode: 'single' }, targets: [target(b)] })).path).toBe('config.targets[0]');
    const r = await chat(
      { passthrough: true },
      { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': c.url, authorization: 'Bearer zz' },
    );
    expect(r.res.status).toBe(200);
    expect(c.lastRequest!.headers.authorization).toBe('Bearer zz');
  });

  it('forwards the headers forward_headers names (config), never gateway headers', async () => {
    const r = await chat({ ...target(a), forward_headers: ['x-trace-me', 'x-gateway-api-key'] }, { 'x-trace-me': '42' });
    expect(r.res.status).toBe(200);
    expect(a.lastRequest!.headers['x-trace-me']).toBe('42');
    expect(a.lastRequest!.headers['x-gateway-api-key']).toBeUndefined();
  });

  it('rejects an invalid inline config with 400 invalid_config naming the path', async () => {
    const r = await chat({ strategy: { mode: 'fallback' }, targets: [target(a, { retry: { attempts: 7 } })] });
    expect(r.res.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_config');
    expect(r.body.error.message).toContain('config.targets[0].retry.attempts');
    const r2 = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': '{not json' },
      body: JSON.stringify({ messages: msg }),
    });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as any).error.code).toBe('invalid_config');
  });
});
