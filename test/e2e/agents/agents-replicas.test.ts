import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, insertKey } from '../tenancy/tenant-helpers.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/** Two replicas on one PostgreSQL schema and one Redis: task owners are shared state. */
describe('/v1/agents across two replicas sharing PostgreSQL and Redis', () => {
  let one: TestGateway;
  let two: TestGateway;
  let agent: FakeAgent;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    agent = await startFakeAgent({ stepMs: 5 });
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };
    one = await startGateway({ store: 'postgres', env });
    two = await startGateway({ store: 'postgres', pgSchema: one.pgSchema, env: { ...env, GATEWAY_ADMIN_KEY: one.adminKey } });
    const rt = one.gateway.deps.runtime.current;
    keyA = await insertKey(one, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: rt.defaultWorkspaceId,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    keyB = await insertKey(one, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: rt.defaultWorkspaceId,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    await one.gateway.deps.runtime.changed();
    expect((await callAs(one, one.adminKey, 'POST', '/v1/agent-servers', { name: 'Echo', slug: 'echo', url: agent.url })).status).toBe(201);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await agent?.close();
  });

  it('a task created through one replica is its owner’s on the other, and nobody else’s', async () => {
    const send = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    };
    const sent = await callAs(one, keyA, 'POST', '/v1/agents/echo', send, { 'a2a-version': '1.0' });
    const taskId = sent.body.result.task.id as string;
    const get = { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } };
    await expect
      .poll(async () => (await callAs(two, keyA, 'POST', '/v1/agents/echo', get, { 'a2a-version': '1.0' })).body.result?.id, {
        timeout: 5000,
      })
      .toBe(taskId);
    expect((await callAs(two, keyB, 'POST', '/v1/agents/echo', get, { 'a2a-version': '1.0' })).body.error).toEqual({
      code: -32001,
      message: `Task not found: ${taskId}`,
    });
  });
});
