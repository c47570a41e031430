import { Writable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { deadUrl, localServer } from '../../../src/features/guardrails/test-support.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chat, eventually, fakeConfig, sseFrames } from './helpers.js';

/** A webhook guardrail server: the path picks the behaviour. */
interface Hit {
  path: string;
  body: any;
  at: number;
}
let hits: Hit[] = [];
async function handler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const c of req) raw += c;
  const path = req.url ?? '/';
  hits.push({ path, body: JSON.parse(raw), at: Date.now() });
  const send = (status: number, text: string): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  if (path === '/pass') return send(200, JSON.stringify({ verdict: true, data: { score: 0.1 } }));
  if (path === '/fail') return send(200, JSON.stringify({ verdict: false, explanation: 'policy says no' }));
  if (path === '/slow') {
    await new Promise((r) => setTimeout(r, 1500));
    if (!res.destroyed) send(200, JSON.stringify({ verdict: false }));
    return;
  }
  if (path === '/slow-fail') {
    await new Promise((r) => setTimeout(r, 1000));
    return send(200, JSON.stringify({ verdict: false }));
  }
  if (path === '/garbage') return send(200, '<html>not json</html>');
  if (path === '/error') return send(500, '{"verdict": true}');
  send(404, '{}');
}

let gw: TestGateway;
let fake: FakeOpenAI;
let hook: { url: string; close(): Promise<void> };
let dead: string;
const logLines: any[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
  hook = await localServer((req, res) => void handler(req, res));
  dead = await deadUrl();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      cb();
    },
  });
  gw = await startGateway({ logger: pino({ level: 'info' }, sink) });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await hook?.close();
});
beforeEach(() => {
  hits = [];
  fake.reset();
});

const webhook = (url: string, extra: Record<string, unknown> = {}) => ({ 'default.webhook': { webhookURL: url, ...extra } });

describe('webhook guardrail', () => {
  it('receives the request, the event type and the metadata; its verdict false with deny answers 446', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { input_guardrails: [{ ...webhook(`${hook.url}/fail`, { headers: { 'x-policy': 'p1' } }), deny: true }] }),
      'hi there',
      { metadata: { team: 'core' } },
    );
    expect(res.status).toBe(446);
    expect(res.body.hook_results.before_request_hooks[0].checks[0]).toMatchObject({
      id: 'default.webhook',
      verdict: false,
      explanation: 'policy says no',
    });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.body).toMatchObject({
      eventType: 'beforeRequestHook',
      metadata: { team: 'core' },
      request: { text: 'hi there', model: 'gpt-4o' },
      response: null,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('after the request it receives the answer; verdict true passes with its data recorded', async () => {
    const res = await chat(gw, fakeConfig(fake, { output_guardrails: [{ ...webhook(`${hook.url}/pass`), deny: true }] }), 'yo');
    expect(res.status).toBe(200);
    expect(res.body.hook_results.after_request_hooks[0].checks[0]).toMatchObject({ verdict: true, data: { score: 0.1 } });
    expect(hits[0]!.body).toMatchObject({ eventType: 'afterRequestHook', response: { text: 'echo: yo', statusCode: 200 } });
  });

  const failures: Array<[string, () => string]> = [
    ['slow (timeout)', () => `${hook.url}/slow`],
    ['down', () => dead],
    ['answering garbage', () => `${hook.url}/garbage`],
    ['answering 500', () => `${hook.url}/error`],
  ];

  it.each(failures)('%s: fails open by default (the answer, status 200)', async (_name, url) => {
    const started = Date.now();
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: [{ ...webhook(url(), { timeout: 200 }), deny: true }] }), 'hi');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1200);
    const check = res.body.hook_results.before_request_hooks[0].checks[0];
    expect(check.verdict).toBe(true);
    expect(check.error).toBeTruthy();
    expect(fake.requests).toHaveLength(1);
  });

  it.each(failures)('%s: fails closed with failOnError (446)', async (_name, url) => {
    const res = await chat(
      gw,
      fakeConfig(fake, { input_guardrails: [{ ...webhook(url(), { timeout: 200, failOnError: true }), deny: true }] }),
      'hi',
    );
    expect(res.status).toBe(446);
    expect(res.body.hook_results.before_request_hooks[0].checks[0]).toMatchObject({ verdict: false });
    expect(fake.requests).toHaveLength(0);
  });

  it('a streamed answer is sent to the webhook as assembled text; deny ends with an error frame', async () => {
    const res = await chat(gw, fakeConfig(fake, { output_guardrails: [{ ...webhook(`${hook.url}/fail`), deny: true }] }), 'stream text', {
      stream: true,
    });
    const frames = sseFrames(res.text);
    expect(JSON.parse(frames.at(-1)!).error.code).toBe('guardrail_denied');
    expect(hits[0]!.body.response.text).toBe('echo: stream text');
  });
});

describe('async guardrails', () => {
  it('an async output hook never delays the answer and never changes it; its result is logged', async () => {
    const started = Date.now();
    const res = await chat(
      gw,
      fakeConfig(fake, {
        after_request_hooks: [
          {
            id: 'audit',
            async: true,
            on_fail: { deny: true },
            checks: [{ id: 'default.webhook', parameters: { webhookURL: `${hook.url}/slow-fail` } }],
          },
        ],
      }),
      'audit me',
    );
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.hook_results).toBeUndefined();
    expect(res.body.choices[0].message.content).toBe('echo: audit me');
    expect(elapsed).toBeLessThan(800);
    const traceId = res.headers.get('x-gateway-trace-id');
    const line = await eventually(() => logLines.find((l) => l.msg === 'async guardrail results' && l.trace_id === traceId));
    expect(line.hook_results[0]).toMatchObject({ id: 'audit', verdict: false, async: true, deny: false });
    expect(hits.map((h) => h.path)).toEqual(['/slow-fail']);
  });

  it('an async input guardrail runs beside the provider call and cannot deny', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { input_guardrails: [{ ...webhook(`${hook.url}/slow-fail`), deny: true, async: true }] }),
      'go',
    );
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    await eventually(() => hits.length === 1);
  });

  it('async guardrails on a stream run after the stream ended', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { output_guardrails: [{ ...webhook(`${hook.url}/fail`), async: true, deny: true }] }),
      'streamed',
      { stream: true },
    );
    expect(sseFrames(res.text).at(-1)).toBe('[DONE]');
    const hit = await eventually(() => hits.find((h) => h.body.eventType === 'afterRequestHook'));
    expect(hit.body.response.text).toBe('echo: streamed');
  });
});

describe('network checks are guarded against private addresses', () => {
  it('a webhook on an untrusted private address is never called (fails closed with failOnError)', async () => {
    const guarded = await startGateway({ env: { TRUSTED_CUSTOM_HOSTS: 'localhost' } });
    try {
      const upstream = fake.url.replace('127.0.0.1', 'localhost');
      const config = { provider: 'openai', api_key: 'sk-good', custom_host: upstream };
      const closed = await chat(
        guarded,
        { ...config, input_guardrails: [{ ...webhook(`${hook.url}/pass`, { failOnError: true }), deny: true }] },
        `hi ${randomId(4)}`,
      );
      expect(closed.status).toBe(446);
      expect(closed.body.hook_results.before_request_hooks[0].checks[0].error).toContain('private address');
      const open = await chat(guarded, { ...config, input_guardrails: [webhook(`${hook.url}/pass`)] }, 'hi');
      expect(open.status).toBe(200);
      const trusted = await chat(
        guarded,
        {
          ...config,
          input_guardrails: [{ ...webhook(`${hook.url.replace('127.0.0.1', 'localhost')}/pass`, { failOnError: true }), deny: true }],
        },
        'hi',
      );
      expect(trusted.status).toBe(200);
      expect(hits.map((h) => h.path)).toEqual(['/pass']);
    } finally {
      await guarded.close();
    }
  });
});
