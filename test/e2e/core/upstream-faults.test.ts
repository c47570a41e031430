import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeServer, bearer, sendJson, type RecordedRequest } from '../../fakes/shared/fake-server.js';

/** What the faulty upstream does with its next request. */
type Mode = 'half-body' | 'redirect' | 'echo-key';

/** An OpenAI-compatible upstream that misbehaves in one of the `Mode` ways, one queued mode per request. */
class FaultyUpstream extends FakeServer {
  readonly modes: Mode[] = [];
  constructor() {
    super((req, res) => this.answer(req, res));
  }
  get url(): string {
    return `${this.origin}/v1`;
  }
  private answer(req: RecordedRequest, res: ServerResponse): void {
    const mode = this.modes.shift() ?? 'half-body';
    if (mode === 'half-body') {
      const body = JSON.stringify({
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(400) }, finish_reason: 'stop' }],
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.write(body.slice(0, body.length / 2), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    if (mode === 'redirect') {
      res.writeHead(302, { location: 'https://login.example.com/?next=/v1/chat/completions', 'content-length': '0' });
      res.end();
      return;
    }
    const key = bearer(req) ?? '';
    sendJson(res, 401, {
      error: {
        message: `Incorrect API key provided: ${key}. Also tried AKIAIOSFODNN7EXAMPLE, AIzaSyA1234567890abcdefghijklmnopqrstuv and https://x.test/?api_key=hunter2hunter2&key=abc123secret, Authorization: Bearer tok_live_0123456789abcdef.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  }
}

let gw: TestGateway;
let bad: FaultyUpstream;
let good: FakeOpenAI;

beforeAll(async () => {
  [bad, good] = await Promise.all([new FaultyUpstream().start(), startFakeOpenAI()]);
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([bad?.close(), good?.close()]);
});
beforeEach(() => {
  bad.reset();
  bad.modes.length = 0;
  good.reset();
});

const badTarget = (apiKey = 'sk-bad') => ({ provider: 'openai', api_key: apiKey, custom_host: bad.url });
const goodTarget = () => ({ provider: 'openai', api_key: 'sk-good', custom_host: good.url });

async function chat(config: unknown) {
  const res = await gw.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': JSON.stringify(config) },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as any };
}

describe('an upstream that resets mid-way through a non-streamed body', () => {
  it('is 502 provider_unreachable', async () => {
    const r = await chat(badTarget());
    expect(r.status, r.text).toBe(502);
    expect(r.body.error.code).toBe('provider_unreachable');
    expect(r.body.error.provider).toBe('openai');
  });

  it('is retried', async () => {
    bad.modes.push('half-body', 'half-body');
    const r = await chat({ ...badTarget(), retry: { attempts: 2 } });
    expect(r.status, r.text).toBe(502);
    expect(bad.requests).toHaveLength(3);
    expect(r.headers.get('x-gateway-retry-attempt-count')).toBe('2');
  });

  it('falls back to the next target', async () => {
    const r = await chat({ strategy: { mode: 'fallback' }, targets: [badTarget(), goodTarget()] });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it('is counted by the circuit breaker', async () => {
    const config = {
      name: 'cb-half-body',
      cb_config: { failure_threshold: 1, cooldown_interval: 60_000 },
      strategy: { mode: 'fallback' },
      targets: [badTarget(), goodTarget()],
    };
    expect((await chat(config)).status).toBe(200);
    expect((await chat(config)).status).toBe(200);
    expect(bad.requests).toHaveLength(1);
    expect(good.requests).toHaveLength(2);
  });
});

describe('an upstream redirect', () => {
  it('is refused as 502 provider_error, never relayed as a 3xx without Location', async () => {
    bad.modes.push('redirect');
    const r = await chat(badTarget());
    expect(r.status, r.text).toBe(502);
    expect(r.headers.get('location')).toBeNull();
    expect(r.body.error).toMatchObject({ code: 'provider_error', type: 'provider_error', provider: 'openai' });
    expect(r.body.error.message).toMatch(/redirect \(302\)/);
  });

  it('moves a fallback on', async () => {
    bad.modes.push('redirect');
    const r = await chat({ strategy: { mode: 'fallback' }, targets: [badTarget(), goodTarget()] });
    expect(r.status, r.text).toBe(200);
  });
});

describe('a provider error that echoes secrets', () => {
  it('keeps them out of the client error and the request log', async () => {
    for (const key of ['sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345', 'my-private-credential-42']) {
      bad.modes.push('echo-key');
      const r = await chat(badTarget(key));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('provider_authentication_error');
      const traceId = r.headers.get('x-gateway-trace-id')!;
      const logs = (await (await gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as any;
      expect(logs.data).toHaveLength(1);
      const stored = JSON.stringify(logs.data[0].error);
      expect(stored).toContain('Incorrect API key provided');
      for (const text of [r.text, stored]) {
        for (const secret of [
          key,
          'AKIAIOSFODNN7EXAMPLE',
          'AIzaSyA1234567890abcdefghijklmnopqrstuv',
          'hunter2hunter2',
          'abc123secret',
          'tok_live_0123456789abcdef',
        ]) {
          expect(text).not.toContain(secret);
        }
        expect(text).toContain('[REDACTED]');
      }
    }
  });
});
