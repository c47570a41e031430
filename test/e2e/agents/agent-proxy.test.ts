import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, insertKey } from '../tenancy/tenant-helpers.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';

/** A fetch that authenticates to the gateway with `key`. */
function keyed(key: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-gateway-api-key', key);
    return fetch(input, { ...init, headers });
  };
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function artifactText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');
}

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('/v1/agents/{slug}: the A2A proxy, with the official SDK on both sides', () => {
  let gw: TestGateway;
  let agent: FakeAgent;
  let keyA: string;
  let keyB: string;
  let noScopeKey: string;
  let card: AgentCard;
  const rpc = (key: string, body: unknown, version?: string, slug = 'echo') =>
    callAs(gw, key, 'POST', `/v1/agents/${slug}`, body, version ? { 'a2a-version': version } : {});

  async function clientFor(key: string, legacy = false): Promise<Client> {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: keyed(key), legacyCompat: { enabled: true } })],
      }),
    );
    if (!legacy) return factory.createFromAgentCard(card);
    // Only the v0.3 interface: the factory then picks the SDK's v0.3 transport.
    return factory.createFromAgentCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
  }

  beforeAll(async () => {
    agent = await startFakeAgent({ prefix: '/a2a', stepMs: 120 });
    gw = await startGateway({ env: { GATEWAY_AGENT_TIMEOUT_MS: '1500' } });
    const rt = gw.gateway.deps.runtime.current;
    const ws = rt.defaultWorkspaceId;
    keyA = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: ws,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    keyB = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: ws,
      type: 'workspace-service',
      scopes: ['agents.invoke'],
    });
    noScopeKey = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: ws,
      type: 'workspace-service',
      scopes: ['completions.write'],
    });
    await gw.gateway.deps.runtime.changed();
    const created = await callAs(gw, gw.adminKey, 'POST', '/v1/agent-servers', {
      name: 'Echo',
      slug: 'echo',
      url: agent.url,
      headers: { authorization: 'Bearer upstream-token-0123456789' },
    });
    expect(created.status).toBe(201);
    card = await new DefaultAgentCardResolver({ fetchImpl: keyed(gw.adminKey) }).resolve(`${gw.url}/v1/agent-servers/echo/agent-card`, '');
  });
  afterAll(async () => {
    await gw?.close();
    await agent?.close();
  });

  it('v1.0: SendMessage and GetTask through the SDK client; the agent gets its headers, not the gateway key', async () => {
    expect(card.supportedInterfaces[0]!.url).toBe(`${gw.url}/v1/agents/echo`);
    const client = await clientFor(keyA);
    const sent = (await client.sendMessage({
      tenant: '',
      message: userMessage('hello'),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(sent)).toBe('echo: hello');
    const got = await client.getTask({ tenant: '', id: sent.id });
    expect(got.id).toBe(sent.id);
    const seen = agent.calls.at(-1)!;
    expect(seen.method).toBe('GetTask');
    expect(seen.headers.authorization).toBe('Bearer upstream-token-0123456789');
    expect(seen.headers['a2a-version']).toBe('1.0');
    expect(seen.headers['x-gateway-api-key']).toBeUndefined();
  });

  it('v1.0: SendStreamingMessage arrives event by event', async () => {
    const client = await clientFor(keyA);
    const arrivals: Array<{ kind: string; at: number }> = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage('stream me'),
      configuration: undefined,
      metadata: undefined,
    })) {
      arrivals.push({ kind: event.payload?.$case ?? '', at: Date.now() });
    }
    expect(arrivals.map((a) => a.kind)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    // The agent pauses 120 ms between events (360 ms in all): relayed as they come, not buffered to the end (which arrives within a few ms).
    expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(150);
    const gaps = arrivals.slice(1).map((a, i) => a.at - arrivals[i]!.at);
    expect(Math.max(...gaps)).toBeGreaterThan(80);
  });

  it('v0.3: message/send, tasks/get and message/stream through the SDK legacy transport and raw JSON-RPC', async () => {
    const client = await clientFor(keyA, true);
    expect(client.protocolVersion).toBe('0.3');
    const sent = (await client.sendMessage({
      tenant: '',
      message: userMessage('old'),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(artifactText(sent)).toBe('echo: old');
    expect(agent.calls.at(-1)!.method).toBe('message/send');
    expect((await client.getTask({ tenant: '', id: sent.id })).id).toBe(sent.id);

    const raw = await rpc(keyA, {
      jsonrpc: '2.0',
      id: 7,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'raw' }] } },
    });
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { kind: 'task', status: { state: 'completed' } } });
    const got = await rpc(keyA, { jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: raw.body.result.id } }, '0.3');
    expect(got.body.result.id).toBe(raw.body.result.id);

    const stream = await gw.fetch('/v1/agents/echo', {
      method: 'POST',
      headers: { 'x-gateway-api-key': keyA },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: 'm-2', role: 'user', parts: [{ kind: 'text', text: 's' }] } },
      }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const kinds = (await stream.text())
      .split('\n\n')
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, '')).result.kind);
    expect(kinds).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);
  });

  it("another key sees none of A's tasks: get, cancel and continuing them are 'task not found'", async () => {
    const mine = (await (
      await clientFor(keyA)
    ).sendMessage({ tenant: '', message: userMessage('private'), configuration: undefined, metadata: undefined })) as Task;
    const other = await clientFor(keyB);
    await expect(other.getTask({ tenant: '', id: mine.id })).rejects.toThrow(/Task not found/);
    const get = await rpc(keyB, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.id } }, '1.0');
    expect(get.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: `Task not found: ${mine.id}` } });
    const cancel = await rpc(keyB, { jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { id: mine.id } });
    expect(cancel.body.error.code).toBe(-32001);
    const follow = await rpc(
      keyB,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'SendMessage',
        params: { message: { messageId: 'x', role: 'ROLE_USER', taskId: mine.id, parts: [{ text: 'hi' }] } },
      },
      '1.0',
    );
    expect(follow.body.error.code).toBe(-32001);
    const referencing = await rpc(
      keyB,
      {
        jsonrpc: '2.0',
        id: 6,
        method: 'SendMessage',
        params: { message: { messageId: 'y', role: 'ROLE_USER', referenceTaskIds: [mine.id], parts: [{ text: 'hi' }] } },
      },
      '1.0',
    );
    expect(referencing.body.error).toEqual({ code: -32001, message: `Task not found: ${mine.id}` });
    const unknown = await rpc(keyA, { jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 'no-such-task' } }, '1.0');
    expect(unknown.body.error).toEqual({ code: -32001, message: 'Task not found: no-such-task' });
    // The owner still reaches it.
    expect((await rpc(keyA, { jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: mine.id } }, '1.0')).body.result.id).toBe(mine.id);
  });

  it('CancelTask of a running task by its owner', async () => {
    const client = await clientFor(keyA);
    const stream = client.sendMessageStream({ tenant: '', message: userMessage('wait'), configuration: undefined, metadata: undefined });
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
    expect(taskId).not.toBe('');
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await stream.return(undefined);
  });

  it('a caller that goes away ends the call to the agent', async () => {
    const abort = new AbortController();
    const res = await gw.fetch('/v1/agents/echo', {
      method: 'POST',
      signal: abort.signal,
      headers: { 'x-gateway-api-key': keyA, 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'gone', role: 'ROLE_USER', parts: [{ text: 'wait' }] } },
      }),
    });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"task"');
    const before = agent.aborted;
    abort.abort();
    await expect.poll(() => agent.aborted, { timeout: 3000 }).toBe(before + 1);
  });

  it('refuses without agents.invoke (403), unknown agents (404), unknown methods, versions and bodies (JSON-RPC errors)', async () => {
    const forbidden = await rpc(noScopeKey, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, '1.0');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('agents.invoke') });
    const missing = await rpc(keyA, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, '1.0', 'nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const before = agent.calls.length;
    const cases: Array<[unknown, string | undefined, number]> = [
      [{ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, '1.0', -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} }, undefined, -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, '0.3', -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }, '1.0', -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, '2.0', -32009],
      [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: [] }, '1.0', -32602],
      [{ id: 1, method: 'SendMessage' }, '1.0', -32600],
      [[{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }], '1.0', -32600],
    ];
    for (const [body, version, code] of cases) {
      const res = await rpc(keyA, body, version);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.error.code, JSON.stringify(res.body)).toBe(code);
      expect(res.body.error.message).not.toBe('');
    }
    expect(agent.calls.length).toBe(before);
  });

  it('a hanging agent ends in a JSON-RPC timeout error, streamed or not', async () => {
    const started = Date.now();
    const res = await rpc(
      keyA,
      {
        jsonrpc: '2.0',
        id: 11,
        method: 'SendMessage',
        params: { message: { messageId: 'h', role: 'ROLE_USER', parts: [{ text: 'hang' }] } },
      },
      '1.0',
    );
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 11,
      error: { code: -32603, message: expect.stringContaining('1500 ms'), data: { code: 'request_timeout' } },
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const stream = await rpc(
      keyA,
      {
        jsonrpc: '2.0',
        id: 12,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'h2', role: 'ROLE_USER', parts: [{ text: 'hang' }] } },
      },
      '1.0',
    );
    expect(stream.body.error.data.code).toBe('request_timeout');
    // Silent after its first event: the stream ends with one JSON-RPC error event.
    const stalled = await gw.fetch('/v1/agents/echo', {
      method: 'POST',
      headers: { 'x-gateway-api-key': keyA, 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 13,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'h3', role: 'ROLE_USER', parts: [{ text: 'stall' }] } },
      }),
    });
    const frames = (await stalled.text())
      .split('\n\n')
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, '')));
    expect(frames, JSON.stringify(frames)).toHaveLength(2);
    expect(frames[0].result.task.id).toBeTruthy();
    expect(frames[1]).toMatchObject({ jsonrpc: '2.0', id: 13, error: { code: -32603, data: { code: 'request_timeout' } } });
  });

  it('the skill allow-list refuses other skills and unnamed ones; the card lists only allowed skills', async () => {
    expect((await callAs(gw, gw.adminKey, 'PUT', '/v1/agent-servers/echo', { skills: { allow: ['echo'] } })).status).toBe(200);
    const send = (metadata: Record<string, string> | undefined) =>
      rpc(
        keyA,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] },
            ...(metadata ? { metadata } : {}),
          },
        },
        '1.0',
      );
    const refused = await send({ skillId: 'admin' });
    expect(refused.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("Skill 'admin' is not allowed") });
    expect((await send(undefined)).body.error.code).toBe(-32602);
    expect((await send({ skillId: 'echo' })).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const listed = await callAs(gw, gw.adminKey, 'GET', '/v1/agent-servers/echo/agent-card', undefined, { 'a2a-version': '1.0' });
    expect(listed.body.skills.map((s: { id: string }) => s.id)).toEqual(['echo']);
    await callAs(gw, gw.adminKey, 'PUT', '/v1/agent-servers/echo', { skills: { allow: null } });
  });

  it('calls are logged with endpoint agents and shown by /v1/logs; rate and usage-limit policies on endpoint_type agents apply', async () => {
    await gw.gateway.deps.logs.flush();
    const logs = await callAs(gw, gw.adminKey, 'GET', '/v1/logs?page_size=100');
    const agents = logs.body.data.filter((l: { endpoint: string }) => l.endpoint === 'agents');
    expect(agents.length).toBeGreaterThan(10);
    expect(
      agents.some(
        (l: { status: number; provider: string; model: string }) => l.status === 200 && l.provider === 'a2a' && l.model === 'echo',
      ),
    ).toBe(true);
    expect(agents.some((l: { status: number }) => l.status === 408)).toBe(true);

    const policy = await callAs(gw, gw.adminKey, 'POST', '/v1/policies/rate-limits', {
      type: 'requests',
      unit: 'rpm',
      value: 2,
      conditions: [{ key: 'endpoint_type', value: 'agents' }],
      group_by: [{ key: 'api_key' }],
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const get = (key: string) => rpc(key, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'any' } }, '1.0');
    expect((await get(keyB)).status).toBe(200);
    expect((await get(keyB)).status).toBe(200);
    const limited = await get(keyB);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    await callAs(gw, gw.adminKey, 'DELETE', `/v1/policies/rate-limits/${policy.body.id}`);

    const budget = await callAs(gw, gw.adminKey, 'POST', '/v1/policies/usage-limits', {
      type: 'requests',
      credit_limit: 1,
      conditions: [{ key: 'endpoint_type', value: 'agents' }],
      group_by: [{ key: 'api_key' }],
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    expect((await get(keyA)).status).toBe(200);
    const spent = await get(keyA);
    expect(spent.status).toBe(429);
    expect(spent.body.error.code).toBe('usage_limit_exceeded');
    await callAs(gw, gw.adminKey, 'DELETE', `/v1/policies/usage-limits/${budget.body.id}`);
  });

  it('/openapi.json documents the agent routes and holds no agent server secret', async () => {
    const doc = await (await gw.fetch('/openapi.json')).text();
    expect(doc).toContain('/v1/agents/{slug}');
    expect(doc).toContain('/v1/agent-servers/{id}/agent-card');
    expect(doc).not.toContain('upstream-token');
  });
});
