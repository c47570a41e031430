import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Role, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeVault, type FakeVault } from '../../fakes/vault/server.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { startFakeAgent, type FakeAgent } from '../../fakes/a2a/agent-server.js';
import { callAs, insertKey, insertWorkspace } from '../tenancy/tenant-helpers.js';
import { createLogger } from '../../../src/infra/observability/logger.js';

const VAULT_TOKEN = 'hvs.vault-token-for-mappings';
const MCP_TOKEN = 'mcp-upstream-token-from-vault-0001';
const AGENT_TOKEN = 'agent-upstream-token-from-vault-0002';
const STATIC_VALUE = 'static-header-value-0003';
const ROTATED = 'agent-token-rotated-in-vault-0004';
const MCP_ROTATED = 'mcp-token-rotated-in-vault-0005';
const SSE_ROTATED = 'mcp-token-rotated-again-in-vault-0006';

/** A fetch that authenticates to the gateway with `key`. */
function keyed(key: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-gateway-api-key', key);
    return fetch(input, { ...init, headers });
  };
}

/**
 * Header `secret_mappings` of MCP integrations and agent servers, resolved from a (fake) HashiCorp
 * Vault when the gateway calls the upstream: an SDK MCP server and an SDK A2A agent receive the
 * resolved headers; bad mappings are refused at save; an unresolvable one is a JSON-RPC error; the
 * secret is in no answer, request log row, audit row or log line. Runs on SQLite and PostgreSQL.
 */
describe('header secret_mappings on /v1/mcp-integrations and /v1/agent-servers', () => {
  let gw: TestGateway;
  let vault: FakeVault;
  let mcp: FakeMcp;
  let agent: FakeAgent;
  let invoker: string;
  let otherWs: string;
  const logLines: string[] = [];
  const answers: unknown[] = [];
  const admin = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await callAs(gw, gw.adminKey, method, path, body, headers);
    answers.push(res.body);
    return res;
  };

  beforeAll(async () => {
    vault = await startFakeVault({
      tokens: [VAULT_TOKEN],
      secrets: { 'secret/mcp/upstream': { token: MCP_TOKEN }, 'secret/a2a/agent': { token: AGENT_TOKEN, other: 'x' } },
    });
    mcp = await startFakeMcp();
    agent = await startFakeAgent({ prefix: '/a2a' });
    gw = await startGateway({ logger: createLogger('debug', { destination: { write: (line: string) => void logLines.push(line) } }) });
    const rt = gw.gateway.deps.runtime.current;
    otherWs = await insertWorkspace(gw, rt.defaultOrganisationId, 'mappings-team-b');
    invoker = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: rt.defaultWorkspaceId,
      type: 'workspace-service',
      scopes: ['agents.invoke', 'mcp.invoke'],
    });
    await gw.gateway.deps.runtime.changed();
    const auth = { vault_addr: vault.origin, token: VAULT_TOKEN };
    for (const r of [
      {
        name: 'mcp token',
        slug: 'vault-mcp',
        manager_type: 'hashicorp_vault',
        auth_config: auth,
        secret_path: 'mcp/upstream',
        secret_key: 'token',
      },
      { name: 'agent json', slug: 'vault-agent', manager_type: 'hashicorp_vault', auth_config: auth, secret_path: 'a2a/agent' },
      { name: 'missing secret', slug: 'vault-missing', manager_type: 'hashicorp_vault', auth_config: auth, secret_path: 'not/there' },
      {
        name: 'team b only',
        slug: 'vault-team-b',
        manager_type: 'hashicorp_vault',
        auth_config: auth,
        secret_path: 'mcp/upstream',
        secret_key: 'token',
        allow_all_workspaces: false,
        allowed_workspaces: [otherWs],
      },
    ]) {
      const created = await admin('POST', '/v1/secret-references', r);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([vault?.close(), mcp?.close(), agent?.close()]);
  });

  it('MCP: the upstream (an SDK server) gets the mapped header, which overrides the static one of the same name; a 401 re-resolves once', async () => {
    const created = await admin('POST', '/v1/mcp-integrations', {
      name: 'Mapped upstream',
      slug: 'mapped-up',
      url: `${mcp.url}/mcp`,
      headers: { Authorization: `Bearer ${STATIC_VALUE}`, 'X-Static': STATIC_VALUE },
      secret_mappings: [{ target_field: 'headers.authorization', secret_reference_id: 'vault-mcp', value_format: 'Bearer {{secret}}' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refId = (await admin('GET', '/v1/secret-references/vault-mcp')).body.id;
    expect(created.body).toMatchObject({
      auth_type: 'headers',
      headers: { Authorization: 'Bea…0003', 'X-Static': 'sta…0003' },
      secret_mappings: [{ target_field: 'headers.authorization', secret_reference_id: refId, value_format: 'Bearer {{secret}}' }],
    });
    expect((await admin('GET', '/v1/mcp-integrations/mapped-up')).body.secret_mappings).toEqual(created.body.secret_mappings);
    expect((await admin('POST', '/v1/mcp-servers', { name: 'Mapped', slug: 'mapped', mcp_integration_id: 'mapped-up' })).status).toBe(201);

    const before = mcp.headers.length;
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/mapped/mcp`), {
      requestInit: { headers: { 'x-gateway-api-key': invoker } },
    });
    const client = new Client({ name: 'mappings-test', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: JSON.stringify({ text: 'hi' }) },
    ]);
    await client.close();
    const seen = mcp.headers.slice(before);
    expect(seen.length).toBeGreaterThan(2);
    for (const h of seen) {
      expect(h.authorization).toBe(`Bearer ${MCP_TOKEN}`);
      expect(h['x-static']).toBe(STATIC_VALUE);
    }

    // Rotated in Vault: the upstream refuses the cached value (401); the gateway fetches the reference anew once and retries.
    vault.options.secrets['secret/mcp/upstream'] = { token: MCP_ROTATED };
    mcp.requiredAuthorization = `Bearer ${MCP_ROTATED}`;
    try {
      const rotated = new Client({ name: 'mappings-test', version: '1.0.0' });
      await rotated.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/mapped/mcp`), {
          requestInit: { headers: { 'x-gateway-api-key': invoker } },
        }),
      );
      const calls = mcp.calls.length;
      expect((await rotated.callTool({ name: 'echo', arguments: { text: 'rotated' } })).content).toEqual([
        { type: 'text', text: JSON.stringify({ text: 'rotated' }) },
      ]);
      expect(mcp.calls.length).toBe(calls + 1);
      await rotated.close();
      expect(mcp.headers.at(-1)!.authorization).toBe(`Bearer ${MCP_ROTATED}`);
    } finally {
      mcp.requiredAuthorization = undefined;
    }

    // A PUT of the headers alone keeps the mappings; a PUT of the mappings alone keeps the headers.
    expect(
      (await admin('PUT', '/v1/mcp-integrations/mapped-up', { headers: { 'X-Static': 'another-static-value' } })).body.secret_mappings,
    ).toHaveLength(1);
    const remapped = await admin('PUT', '/v1/mcp-integrations/mapped-up', {
      secret_mappings: [{ target_field: 'headers.X-Api-Key', secret_reference_id: 'vault-mcp' }],
    });
    expect(remapped.status, JSON.stringify(remapped.body)).toBe(200);
    expect(remapped.body).toMatchObject({
      headers: { 'X-Static': 'ano…alue' },
      secret_mappings: [{ target_field: 'headers.X-Api-Key', secret_reference_id: refId }],
    });
    // Leaving auth_type headers drops both.
    const none = await admin('PUT', '/v1/mcp-integrations/mapped-up', { auth_type: 'none' });
    expect(none.body).toMatchObject({ auth_type: 'none', headers: {}, secret_mappings: [] });
  });

  it('MCP over HTTP+SSE: the stream and the posted messages carry the mapped header; a message refused with 401 after a rotation re-resolves once and reopens the stream', async () => {
    const created = await admin('POST', '/v1/mcp-integrations', {
      name: 'Mapped SSE upstream',
      slug: 'mapped-sse-up',
      url: `${mcp.url}/sse`,
      transport: 'sse',
      secret_mappings: [{ target_field: 'headers.authorization', secret_reference_id: 'vault-mcp', value_format: 'Bearer {{secret}}' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(
      (await admin('POST', '/v1/mcp-servers', { name: 'Mapped SSE', slug: 'mapped-sse', mcp_integration_id: 'mapped-sse-up' })).status,
    ).toBe(201);
    const current = `Bearer ${(vault.options.secrets['secret/mcp/upstream'] as { token: string }).token}`;
    const client = new Client({ name: 'mappings-sse-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/mapped-sse/mcp`), {
        requestInit: { headers: { 'x-gateway-api-key': invoker } },
      }),
    );
    const before = mcp.headers.length;
    expect((await client.callTool({ name: 'echo', arguments: { text: 'sse' } })).content).toEqual([
      { type: 'text', text: JSON.stringify({ text: 'sse' }) },
    ]);
    for (const h of mcp.headers.slice(before)) expect(h.authorization).toBe(current);

    // Rotated while the stream is open: the next message is refused (401); the gateway fetches the reference anew,
    // opens a new stream with it (replaying the session's initialize) and sends the message there, once.
    vault.options.secrets['secret/mcp/upstream'] = { token: SSE_ROTATED };
    mcp.requiredAuthorization = `Bearer ${SSE_ROTATED}`;
    try {
      const calls = mcp.calls.length;
      const refusedAt = mcp.headers.length;
      expect((await client.callTool({ name: 'echo', arguments: { text: 'after rotation' } })).content).toEqual([
        { type: 'text', text: JSON.stringify({ text: 'after rotation' }) },
      ]);
      expect(mcp.calls.length).toBe(calls + 1);
      const sent = mcp.headers.slice(refusedAt);
      expect(sent[0]!.authorization).toBe(current);
      expect(sent.slice(1).every((h) => h.authorization === `Bearer ${SSE_ROTATED}`)).toBe(true);
      expect(sent.some((h) => h.accept?.includes('text/event-stream'))).toBe(true);
      await client.close();
    } finally {
      mcp.requiredAuthorization = undefined;
    }
  });

  it('A2A: the card fetch and the JSON-RPC proxy (an SDK agent, an SDK client) send the mapped header from a JSON secret; a 401 re-resolves once', async () => {
    const created = await admin('POST', '/v1/agent-servers', {
      name: 'Mapped agent',
      slug: 'mapped-agent',
      url: agent.url,
      headers: { 'x-static': STATIC_VALUE },
      secret_mappings: [
        {
          target_field: 'headers.Authorization',
          secret_reference_id: 'vault-agent',
          secret_key: 'token',
          value_format: 'Bearer {{secret}}',
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      headers: { 'x-static': 'sta…0003' },
      secret_mappings: [{ target_field: 'headers.Authorization', secret_key: 'token', value_format: 'Bearer {{secret}}' }],
    });

    const card: AgentCard = await new DefaultAgentCardResolver({ fetchImpl: keyed(gw.adminKey) }).resolve(
      `${gw.url}/v1/agent-servers/mapped-agent/agent-card`,
      '',
    );
    expect(agent.cardRequests.at(-1)).toMatchObject({ authorization: `Bearer ${AGENT_TOKEN}`, 'x-static': STATIC_VALUE });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: keyed(invoker) })],
      }),
    );
    const client = await factory.createFromAgentCard(card);
    const message: Message = {
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'hello mapped' }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const answer = await client.sendMessage({ message, configuration: undefined, metadata: undefined, tenant: '' });
    expect((answer as Task).id).toBeTruthy();
    const call = agent.calls.at(-1)!;
    expect(call.headers.authorization).toBe(`Bearer ${AGENT_TOKEN}`);
    expect(call.headers['x-static']).toBe(STATIC_VALUE);
    expect(JSON.stringify(call.headers)).not.toContain(invoker);

    // Rotated in Vault: the agent server refuses the cached value; the gateway fetches the reference anew once and retries.
    vault.options.secrets['secret/a2a/agent'] = { token: ROTATED };
    agent.requiredAuthorization = `Bearer ${ROTATED}`;
    try {
      const before = agent.calls.length;
      const res = await callAs(
        gw,
        invoker,
        'POST',
        '/v1/agents/mapped-agent',
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'SendMessage',
          params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'rotated' }] } },
        },
        { 'a2a-version': '1.0' },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result.task.id).toBeTruthy();
      expect(agent.calls.slice(before).map((x) => x.headers.authorization)).toEqual([`Bearer ${AGENT_TOKEN}`, `Bearer ${ROTATED}`]);
    } finally {
      agent.requiredAuthorization = undefined;
    }
  });

  it('refuses bad mappings at save with 400 naming the mapping field', async () => {
    const m = (over: Record<string, unknown>) => [{ target_field: 'headers.X-Key', secret_reference_id: 'vault-mcp', ...over }];
    const cases: Array<[string, string, unknown, string]> = [
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ secret_reference_id: 'nope' }) },
        'secret_mappings[0].secret_reference_id',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ target_field: 'X-Key' }) },
        'secret_mappings[0].target_field',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ target_field: 'headers.Mcp-Session-Id' }) },
        'secret_mappings[0].target_field',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: [...m({}), ...m({ target_field: 'headers.x-key' })] },
        'secret_mappings[1].target_field',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ value_format: 'Bearer secret' }) },
        'secret_mappings[0].value_format',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ value_format: '{{secret}}{{secret}}' }) },
        'secret_mappings[0].value_format',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ value_format: 'json' }) },
        'secret_mappings[0].secret_key',
      ],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ secret_reference_id: 'vault-agent', secret_key: 'absent' }) },
        'secret_mappings[0].secret_key',
      ],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${mcp.url}/mcp`, auth_type: 'none', secret_mappings: m({}) }, 'secret_mappings'],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${mcp.url}/mcp`, secret_mappings: m({ colour: 'red' }) }, 'colour'],
      [
        'POST',
        '/v1/agent-servers',
        { name: 'x', url: agent.url, secret_mappings: m({ secret_reference_id: 'nope' }) },
        'secret_mappings[0].secret_reference_id',
      ],
      // Shared with another workspace only: not visible to an agent server of this one.
      [
        'POST',
        '/v1/agent-servers',
        { name: 'x', url: agent.url, secret_mappings: m({ secret_reference_id: 'vault-team-b' }) },
        'secret_mappings[0].secret_reference_id',
      ],
      [
        'POST',
        '/v1/agent-servers',
        { name: 'x', url: agent.url, secret_mappings: m({ target_field: 'headers.A2A-Version' }) },
        'secret_mappings[0].target_field',
      ],
      [
        'POST',
        '/v1/agent-servers',
        { name: 'x', url: agent.url, secret_mappings: m({ value_format: 'Bearer {{secret}}\r\nX-Evil: 1' }) },
        'secret_mappings[0].value_format',
      ],
      [
        'PUT',
        '/v1/agent-servers/mapped-agent',
        { secret_mappings: m({ secret_reference_id: 'nope' }) },
        'secret_mappings[0].secret_reference_id',
      ],
    ];
    for (const [method, path, body, param] of cases) {
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(`${res.body.error.param ?? ''} ${res.body.error.message}`, JSON.stringify(res.body)).toContain(param);
    }
    // The refused PUT changed nothing.
    expect((await admin('GET', '/v1/agent-servers/mapped-agent')).body.secret_mappings[0].target_field).toBe('headers.Authorization');
    // The reference shared with team b is accepted for a team b agent server.
    const teamB = await insertKey(gw, {
      organisationId: gw.gateway.deps.runtime.current.defaultOrganisationId,
      workspaceId: otherWs,
      type: 'workspace-service',
    });
    await gw.gateway.deps.runtime.changed();
    const ok = await callAs(gw, teamB, 'POST', '/v1/agent-servers', {
      name: 'b',
      url: agent.url,
      secret_mappings: m({ secret_reference_id: 'vault-team-b' }),
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('a reference that cannot be resolved at call time is a JSON-RPC error naming it (MCP and A2A); the card read is 502', async () => {
    const missing = (await admin('GET', '/v1/secret-references/vault-missing')).body.id;
    expect(
      (
        await admin('POST', '/v1/mcp-integrations', {
          name: 'Broken',
          slug: 'broken-up',
          url: `${mcp.url}/mcp`,
          secret_mappings: [{ target_field: 'headers.X-Key', secret_reference_id: 'vault-missing' }],
        })
      ).status,
    ).toBe(201);
    expect((await admin('POST', '/v1/mcp-servers', { name: 'Broken', slug: 'broken', mcp_integration_id: 'broken-up' })).status).toBe(201);
    const before = mcp.initializations;
    const init = await fetch(`${gw.url}/v1/mcp/broken/mcp`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': invoker, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const rpc = (await init.json()) as { error: { code: number; message: string; data: { status: number; code: string } } };
    expect(rpc.error).toMatchObject({ code: -32000, data: { status: 502, code: 'provider_unreachable' } });
    expect(rpc.error.message).toContain(missing);
    expect(rpc.error.message).toContain('missing secret');
    expect(mcp.initializations).toBe(before);

    expect(
      (
        await admin('POST', '/v1/agent-servers', {
          name: 'Broken agent',
          slug: 'broken-agent',
          url: agent.url,
          secret_mappings: [
            { target_field: 'headers.Authorization', secret_reference_id: 'vault-missing', value_format: 'Bearer {{secret}}' },
          ],
        })
      ).status,
    ).toBe(201);
    const calls = agent.calls.length;
    const res = await callAs(
      gw,
      invoker,
      'POST',
      '/v1/agents/broken-agent',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      },
      { 'a2a-version': '1.0' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, data: { code: 'provider_unreachable' } } });
    expect(res.body.error.message).toContain(missing);
    expect(agent.calls.length).toBe(calls);
    const card = await admin('GET', '/v1/agent-servers/broken-agent/agent-card');
    expect(card.status).toBe(502);
    expect(card.body.error).toMatchObject({ code: 'provider_unreachable', param: 'secret_reference_id' });
  });

  it('the secrets are in no answer, request log row, audit row or log line', async () => {
    await gw.gateway.deps.logs.flush();
    const db = gw.gateway.deps.store.db;
    const logs = await db.selectFrom('request_logs').selectAll().execute();
    expect(logs.some((l) => l.endpoint === 'mcp')).toBe(true);
    expect(logs.some((l) => l.endpoint === 'agents')).toBe(true);
    const audit = await db.selectFrom('audit_logs').selectAll().execute();
    expect(audit.some((a) => a.action === 'mcp_integration.create' && a.details.includes('secret_mappings'))).toBe(true);
    answers.push((await admin('GET', '/v1/logs?page_size=100')).body, (await admin('GET', '/v1/audit-logs?page_size=100')).body);
    const everything = JSON.stringify([
      answers,
      logs,
      audit,
      logLines,
      await db.selectFrom('mcp_integrations').selectAll().execute(),
      await db.selectFrom('agent_servers').selectAll().execute(),
    ]);
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of [MCP_TOKEN, MCP_ROTATED, SSE_ROTATED, AGENT_TOKEN, ROTATED, STATIC_VALUE, VAULT_TOKEN])
      expect(everything).not.toContain(secret);
  });
});
