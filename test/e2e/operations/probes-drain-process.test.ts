import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { buildInfo } from '../../../src/foundation/lib/build-info.js';

// A slow upstream: answers a chat completion after 1.5 s, so a request is in flight when SIGTERM comes.
let upstream: Server;
let upstreamUrl: string;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'slow answer' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
          }),
        );
      }, 1_500),
    );
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

function chat(gw: GatewayProcess, dispatcher: Agent) {
  return request(gw.url + '/v1/chat/completions', {
    method: 'POST',
    dispatcher,
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': gw.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstreamUrl,
      authorization: 'Bearer k',
    },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function json(gw: GatewayProcess, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(gw.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('probes and drain (operations.md §1, §2)', () => {
  it('/health reports version and commit, /health/live and /health/ready answer 200 with their checks', async () => {
    const gw = await spawnGateway({ GATEWAY_COMMIT: 'abcdef1234567' });
    try {
      const health = await json(gw, '/health');
      expect(health).toEqual({ status: 200, body: { status: 'ok', version: buildInfo().version, commit: 'abcdef1234567' } });
      expect(await json(gw, '/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
      const ready = await json(gw, '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ready',
        version: buildInfo().version,
        commit: 'abcdef1234567',
        checks: { store: 'ok', migrations: 'ok', snapshot: 'ok', draining: 'ok' },
      });
    } finally {
      await gw.stop();
    }
  }, 60_000);

  it('SIGTERM: readiness fails at once, requests are served during GATEWAY_SHUTDOWN_DELAY_MS, then it drains and exits 0', async () => {
    const gw = await spawnGateway({ GATEWAY_SHUTDOWN_DELAY_MS: '1500', LOG_LEVEL: 'info' });
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      gw.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      const ready = await json(gw, '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'not_ready', reasons: ['draining'], checks: { draining: 'fail', store: 'ok' } });
      expect((await json(gw, '/health/live')).status).toBe(200);
      const res = await chat(gw, agent);
      expect(res.statusCode).toBe(200);
      expect(((await res.body.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(
        'slow answer',
      );
      const started = Date.now();
      expect(await gw.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(gw.output()).toContain('"msg":"draining"');
    } finally {
      await agent.close();
      await gw.stop();
    }
  }, 60_000);

  it('SIGTERM while a keep-alive connection carries an in-flight request: the request finishes and the process exits 0 promptly', async () => {
    const gw = await spawnGateway({});
    const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      // Warm the keep-alive connection, then send the slow request on it.
      expect(await request(gw.url + '/health', { dispatcher: agent }).then((r) => (r.body.dump(), r.statusCode))).toBe(200);
      const inFlight = chat(gw, agent);
      await new Promise((r) => setTimeout(r, 300));
      const signalled = Date.now();
      gw.child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.statusCode).toBe(200);
      expect(res.headers.connection).toBe('close');
      await res.body.json();
      expect(await gw.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(6_000);
    } finally {
      await agent.close();
      await gw.stop();
    }
  }, 60_000);
});
