import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/ports.js';
import { startRedis, stopRedis } from '../../helpers/redis-server.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';
import { agentsCapability } from '../../../src/features/agents/agents-capability.js';
import { waitForRedis } from '../../../src/infra/state/redis-ready.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/** Task owners in a Redis of this test's own, stopped halfway: ownership checks fail closed. */
describe('/v1/agents when Redis (the task owners) becomes unreachable', () => {
  let port: number;
  let gw: TestGateway;
  let agent: FakeAgent;

  beforeAll(async () => {
    agent = await startFakeAgent({ stepMs: 5 });
    port = await freePort();
    await startRedis(port);
    gw = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `gwtest:${randomId(8)}:` },
      capabilities: [agentsCapability],
    });
    await waitForRedis(gw.gateway.deps.state.redis!);
    expect((await callAs(gw, gw.adminKey, 'POST', '/v1/agent-servers', { name: 'Echo', slug: 'echo', url: agent.url })).status).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await agent?.close();
    stopRedis(port);
  });

  it("a task's owner is read from Redis; without Redis its tasks are refused, not shown", async () => {
    const send = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    };
    const taskId = (await callAs(gw, gw.adminKey, 'POST', '/v1/agents/echo', send, { 'a2a-version': '1.0' })).body.result.task.id as string;
    const get = { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } };
    expect((await callAs(gw, gw.adminKey, 'POST', '/v1/agents/echo', get, { 'a2a-version': '1.0' })).body.result.id).toBe(taskId);
    stopRedis(port);
    const calls = agent.calls.length;
    const refused = await callAs(gw, gw.adminKey, 'POST', '/v1/agents/echo', get, { 'a2a-version': '1.0' });
    expect(refused.status).toBe(200);
    expect(refused.body.error).toMatchObject({ code: -32603, data: { code: 'store_unavailable' } });
    expect(agent.calls.length).toBe(calls);
  });
});
