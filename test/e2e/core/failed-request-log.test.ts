import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { createLogger } from '../../../src/infra/observability/logger.js';

describe('one info line per failed request', () => {
  const lines: Array<Record<string, unknown>> = [];
  let gw: TestGateway;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    gw = await startGateway({ logger: createLogger('info', { destination }) });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  const failures = () => lines.filter((l) => l.msg === 'request failed');

  it('names status, code, provider, model, request id and latency, at the default level', async () => {
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-bad', custom_host: fake.url });
    const res = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-gateway-request-id');
    await expect.poll(() => failures().length).toBe(1);
    expect(failures()[0]).toMatchObject({
      level: 30,
      status: 401,
      code: 'provider_authentication_error',
      provider: 'openai',
      model: 'gpt-4o',
      requestId,
      path: '/v1/chat/completions',
    });
    expect(failures()[0]!.latencyMs).toBeTypeOf('number');
    expect(JSON.stringify(failures()[0])).not.toContain('sk-bad');
  });

  it('logs a refused gateway key too, and nothing for a success', async () => {
    const before = failures().length;
    const refused = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': 'nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const ok = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: {
        'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-good', custom_host: fake.url }),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(ok.status).toBe(200);
    await expect.poll(() => failures().length).toBe(before + 1);
    expect(failures().at(-1)).toMatchObject({ status: 401, code: 'invalid_api_key', provider: null });
  });
});
