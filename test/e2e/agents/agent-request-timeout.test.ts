import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';

/**
 * `x-gateway-request-timeout` bounds an agent call as it bounds a data-plane request: a call to an agent
 * that never answers ends after the time the client asked for (not the server-wide
 * `GATEWAY_AGENT_TIMEOUT_MS`, 300 s by default), as a JSON-RPC error with `data.code: "request_timeout"`,
 * logged with 408. Runs on SQLite and, in the postgres project, on PostgreSQL.
 */
describe('/v1/agents/{slug} with x-gateway-request-timeout', () => {
  let gw: TestGateway;
  let agent: FakeAgent;
  const send = (text: string, method: string, headers: Record<string, string>) =>
    callAs(
      gw,
      gw.adminKey,
      'POST',
      '/v1/agents/echo',
      { jsonrpc: '2.0', id: 7, method, params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } },
      { 'a2a-version': '1.0', ...headers },
    );

  beforeAll(async () => {
    agent = await startFakeAgent({ prefix: '/a2a', stepMs: 50 });
    gw = await startGateway();
    const created = await callAs(gw, gw.adminKey, 'POST', '/v1/agent-servers', { name: 'Echo', slug: 'echo', url: agent.url });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await agent?.close();
  });

  it('a hanging agent is cut at the requested time, streamed or not, and logged with 408', async () => {
    let started = Date.now();
    const res = await send('hang', 'SendMessage', { 'x-gateway-request-timeout': '700' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'The agent server did not answer within 700 ms.', data: { code: 'request_timeout' } },
    });
    started = Date.now();
    const stream = await send('hang', 'SendStreamingMessage', { 'x-gateway-request-timeout': '700' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(stream.body.error.data.code).toBe('request_timeout');
    await gw.gateway.deps.logs.flush();
    const logs = await callAs(gw, gw.adminKey, 'GET', '/v1/logs?page_size=100');
    const timedOut = logs.body.data.filter((l: { endpoint: string; status: number }) => l.endpoint === 'agents' && l.status === 408);
    expect(timedOut.length).toBe(2);
    expect(timedOut[0].error).toMatchObject({ code: 'request_timeout' });
  });

  it('bounds the whole stream: an agent silent after its first event ends with one JSON-RPC error event', async () => {
    const started = Date.now();
    const stalled = await gw.fetch('/v1/agents/echo', {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'x-gateway-request-timeout': '700', 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 's', role: 'ROLE_USER', parts: [{ text: 'stall' }] } },
      }),
    });
    const frames = (await stalled.text())
      .split('\n\n')
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, '')));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(frames).toHaveLength(2);
    expect(frames[1]).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32603, data: { code: 'request_timeout' } } });
  });

  it('a call that answers in time is unaffected; a bad header value is 400 naming it', async () => {
    const ok = await send('hello', 'SendMessage', { 'x-gateway-request-timeout': '5000' });
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const bad = await send('hello', 'SendMessage', { 'x-gateway-request-timeout': 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'x-gateway-request-timeout' });
  });
});
