import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { freePort } from '../../helpers/ports.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { callAs, insertKey, insertWorkspace } from '../tenancy/tenant-helpers.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';

const UPSTREAM_TOKEN = 'upstream-token-0123456789abcdef';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('MCP gateway', () => {
  let gw: TestGateway;
  let fake: FakeMcp;
  let otherKey: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  /** An SDK client connected through the gateway to MCP server `slug`. */
  async function connect(slug: string, key = gw.adminKey): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/${slug}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  }

  /** A raw JSON-RPC POST to the endpoint. */
  async function post(slug: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
    const res = await fetch(`${gw.url}/v1/mcp/${slug}/mcp`, {
      method: 'POST',
      headers: {
        'x-gateway-api-key': gw.adminKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });
    const text = await res.text();
    const data =
      text.startsWith('event:') || text.startsWith('data:')
        ? text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6)
        : text;
    return { status: res.status, json: data ? JSON.parse(data) : null };
  }

  beforeAll(async () => {
    fake = await startFakeMcp();
    gw = await startGateway();
    const deps = gw.gateway.deps;
    const otherWs = await insertWorkspace(gw, deps.runtime.current.defaultOrganisationId, 'mcp-team-b');
    otherKey = await insertKey(gw, {
      organisationId: deps.runtime.current.defaultOrganisationId,
      workspaceId: otherWs,
      type: 'workspace-service',
    });
    await deps.runtime.changed();
    const integration = await admin('POST', '/v1/mcp-integrations', {
      name: 'Fake upstream',
      slug: 'fake-up',
      url: `${fake.url}/mcp`,
      auth_type: 'headers',
      headers: { Authorization: `Bearer ${UPSTREAM_TOKEN}` },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', {
      name: 'Files',
      slug: 'files',
      mcp_integration_id: 'fake-up',
      tools: { deny: ['secret'] },
    });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('stores header values sealed and answers them masked', async () => {
    const got = await admin('GET', '/v1/mcp-integrations/fake-up');
    expect(got.body).toMatchObject({
      object: 'mcp_integration',
      slug: 'fake-up',
      transport: 'http',
      auth_type: 'headers',
      headers: { Authorization: 'Bea…cdef' },
      workspace_id: null,
    });
    const row = await gw.gateway.deps.store.db
      .selectFrom('mcp_integrations')
      .selectAll()
      .where('slug', '=', 'fake-up')
      .executeTakeFirstOrThrow();
    expect(isSealed(row.headers_ciphertext)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(UPSTREAM_TOKEN);
    const audit = await gw.gateway.deps.store.db.selectFrom('audit_logs').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(UPSTREAM_TOKEN);
    expect(audit.some((a) => a.action === 'mcp_integration.create')).toBe(true);
    expect((await admin('GET', '/v1/mcp-servers/files')).body).toMatchObject({
      object: 'mcp_server',
      slug: 'files',
      tools: { deny: ['secret'] },
      default_user_access: 'allow',
      endpoint: '/v1/mcp/files/mcp',
    });
  });

  it('lists no OAuth connections of a server whose integration uses headers: an empty list, not a 409', async () => {
    const list = await admin('GET', '/v1/mcp-servers/files/connections?current_page=0&page_size=10');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [], total: 0 });
    expect((await admin('GET', '/v1/mcp-servers/files/connections?page_size=501')).status).toBe(400);
  });

  it('an SDK client lists and calls tools, gets progress, reads resources and prompts through the gateway', async () => {
    const { client, transport } = await connect('files');
    expect(transport.sessionId).toBeTruthy();
    expect(client.getServerVersion()?.name).toBe('fake-upstream');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['echo', 'progress']);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hello-mcp' } });
    expect(echoed.content).toEqual([{ type: 'text', text: JSON.stringify({ text: 'hello-mcp' }) }]);
    const progress: number[] = [];
    const done = await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(done.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['fake://readme']);
    expect((await client.readResource({ uri: 'fake://readme' })).contents).toEqual([
      { uri: 'fake://readme', mimeType: 'text/plain', text: 'hello resource' },
    ]);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).messages[0]!.content).toEqual({
      type: 'text',
      text: 'Hello Ada',
    });
    // The upstream got its own credential, never the gateway's.
    const upstream = fake.headers.filter((h) => h['mcp-session-id'] !== undefined || h['content-type'] !== undefined);
    expect(upstream.length).toBeGreaterThan(0);
    for (const h of fake.headers) {
      expect(h.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
      expect(JSON.stringify(h)).not.toContain(gw.adminKey);
      expect(h['x-gateway-api-key']).toBeUndefined();
    }
    await transport.terminateSession();
    const after = await post('files', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), {
      'mcp-session-id': transport.sessionId ?? 'gone',
      'mcp-protocol-version': '2025-06-18',
    });
    expect(after.status).toBe(404);
    expect(after.json.error.code).toBe(-32001);
    await client.close();
  });

  it('relays upstream notifications on the session stream (GET); GET needs its session', async () => {
    const { client, transport } = await connect('files');
    let changed = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed = true;
    });
    // The SDK client opens its GET stream after initializing; announce until the notification arrives.
    await expect
      .poll(
        async () => {
          await fake.announceToolsChanged();
          return changed;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(true);
    const noSession = await fetch(`${gw.url}/v1/mcp/files/mcp`, {
      headers: { 'x-gateway-api-key': gw.adminKey, accept: 'text/event-stream' },
    });
    expect(noSession.status).toBe(400);
    const foreign = await fetch(`${gw.url}/v1/mcp/files/mcp`, {
      headers: { 'x-gateway-api-key': otherKey, accept: 'text/event-stream', 'mcp-session-id': transport.sessionId! },
    });
    expect(foreign.status).toBe(404);
    await client.close();
  });

  it('a session unused for 24 hours is over: 404 and its row is gone', async () => {
    const { client, transport } = await connect('files');
    const db = gw.gateway.deps.store.db;
    const sid = transport.sessionId!;
    await db
      .updateTable('mcp_sessions')
      .set({ last_used_at: Date.now() - 25 * 3_600_000 })
      .where('id', '=', sid)
      .execute();
    const res = await post('files', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': sid });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe(-32001);
    expect(await db.selectFrom('mcp_sessions').select('id').where('id', '=', sid).executeTakeFirst()).toBeUndefined();
    await client.close();
  });

  it('a denied tool is refused with a JSON-RPC error and never reaches the upstream, however it is called', async () => {
    const { client, transport } = await connect('files');
    const before = fake.calls.length;
    const refused = await client.callTool({ name: 'secret', arguments: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    expect((refused as McpError).message).toContain("Tool 'secret' is not available");
    const raw = await post(
      'files',
      JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'secret', arguments: {} } }),
      { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(raw.status).toBe(200);
    expect(raw.json).toMatchObject({ jsonrpc: '2.0', id: 'x', error: { code: -32602 } });
    const batch = await post(
      'files',
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'secret' } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
      ]),
      { 'mcp-session-id': transport.sessionId! },
    );
    expect(batch.status).toBe(200);
    expect(fake.calls.slice(before).map((c) => c.tool)).toEqual(['echo']);
    // An allow list hides and refuses everything else.
    expect((await admin('PUT', '/v1/mcp-servers/files', { tools: { allow: ['echo'] } })).status).toBe(200);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(((await client.callTool({ name: 'progress' }).catch((e: unknown) => e)) as McpError).code).toBe(-32602);
    expect(fake.calls.slice(before).map((c) => c.tool)).toEqual(['echo']);
    expect((await admin('PUT', '/v1/mcp-servers/files', { tools: { deny: ['secret'] } })).status).toBe(200);
    await client.close();
  });

  it('refuses colliding upstream tool names on tools/list', async () => {
    const { client } = await connect('files');
    fake.tools.push({ name: 'echo', inputSchema: { type: 'object' } });
    try {
      const err = (await client.listTools().catch((e: unknown) => e)) as McpError;
      expect(err).toBeInstanceOf(McpError);
      expect(err.message).toContain("two tools named 'echo'");
    } finally {
      fake.tools.pop();
    }
    await client.close();
  });

  it('logs every tools/call into the request log with endpoint mcp, redacted arguments and the status', async () => {
    const { client } = await connect('files');
    await client.callTool({ name: 'echo', arguments: { text: 'very-private-argument' } });
    await client.callTool({ name: 'secret', arguments: { text: 'another-private-argument' } }).catch(() => undefined);
    await client.close();
    let rows: any[] = [];
    await expect
      .poll(async () => {
        rows = (await admin('GET', '/v1/logs?page_size=100')).body.data.filter((r: any) => r.endpoint === 'mcp');
        return rows.filter((r) => r.metadata?.mcp_arguments?.includes('"text"')).length;
      })
      .toBeGreaterThanOrEqual(2);
    const ok = rows.find((r) => r.model === 'echo' && r.status === 200)!;
    expect(ok).toMatchObject({
      endpoint: 'mcp',
      provider: 'files',
      model: 'echo',
      status: 200,
      metadata: { mcp_server: 'files', mcp_tool: 'echo', mcp_arguments: '{"text":"[redacted]"}' },
    });
    expect(typeof ok.latency_ms).toBe('number');
    expect(rows.find((r) => r.model === 'secret')).toMatchObject({ status: 403, provider: 'files' });
    const stored = await gw.gateway.deps.store.db.selectFrom('request_logs').selectAll().where('endpoint', '=', 'mcp').execute();
    expect(JSON.stringify(stored)).not.toContain('very-private-argument');
    expect(JSON.stringify(stored)).not.toContain(UPSTREAM_TOKEN);
  });

  it('a rate-limit policy with endpoint_type mcp limits tool calls', async () => {
    const policy = await admin('POST', '/v1/policies/rate-limits', {
      type: 'requests',
      unit: 'rpm',
      value: 1,
      conditions: [{ key: 'endpoint_type', value: 'mcp' }],
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const { client } = await connect('files');
    try {
      const before = fake.calls.length;
      await client.callTool({ name: 'echo', arguments: { text: 'one' } });
      const limited = (await client.callTool({ name: 'echo', arguments: { text: 'two' } }).catch((e: unknown) => e)) as McpError;
      expect(limited).toBeInstanceOf(McpError);
      expect(limited.data).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(fake.calls.length).toBe(before + 1);
      // Listing is not a tool call: not limited.
      expect((await client.listTools()).tools.length).toBe(2);
    } finally {
      await admin('DELETE', `/v1/policies/rate-limits/${policy.body.id}`);
      await client.close();
    }
  });

  it('malformed JSON-RPC is a parse error; a missing session is 400; a wrong content type is 415', async () => {
    const { client, transport } = await connect('files');
    const sid = transport.sessionId!;
    const bad = await post('files', '{"jsonrpc": "2.0", "id": 1, "method": ', { 'mcp-session-id': sid });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notRpc = await post('files', JSON.stringify({ hello: 'world' }), { 'mcp-session-id': sid });
    expect(notRpc.status).toBe(400);
    expect(notRpc.json.error.code).toBe(-32700);
    const noSession = await post('files', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(noSession.status).toBe(400);
    expect(noSession.json.error.message).toContain('Mcp-Session-Id');
    const text = await post('files', 'hello', { 'content-type': 'text/plain', 'mcp-session-id': sid });
    expect(text.status).toBe(415);
    const unknown = await post('no-such-server', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('not_found');
    await client.close();
  });

  it('a body nested past 1,000 levels is a JSON-RPC parse error before it reaches the SDK or the upstream; 1,000 levels pass', async () => {
    const { client, transport } = await connect('files');
    const sid = transport.sessionId!;
    // The message, `params` and `arguments` are three levels; the array nested in `arguments` makes the rest.
    const call = (levels: number) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","deep":${'['.repeat(levels - 3)}${']'.repeat(levels - 3)}}}}`;
    const before = fake.calls.length;
    for (const levels of [1001, 100_000]) {
      const r = await post('files', call(levels), { 'mcp-session-id': sid });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'The request is nested too deeply.' } });
    }
    expect(fake.calls.length).toBe(before);
    const atLimit = await post('files', call(1000), { 'mcp-session-id': sid });
    expect(atLimit.status).toBe(200);
    expect(atLimit.json.result.content[0].text).toContain('"deep":[[[');
    await client.close();
  });

  it('an upstream that is down answers a JSON-RPC error at once, not a hang', async () => {
    const port = await freePort();
    expect(
      (await admin('POST', '/v1/mcp-integrations', { name: 'Down', slug: 'down-up', url: `http://127.0.0.1:${port}/mcp` })).status,
    ).toBe(201);
    expect((await admin('POST', '/v1/mcp-servers', { name: 'Down', slug: 'down', mcp_integration_id: 'down-up' })).status).toBe(201);
    const t0 = Date.now();
    const init = await post(
      'down',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(init.status).toBe(200);
    expect(init.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: expect.stringContaining('could not be reached') },
    });
    const sdk = await connect('down').catch((e: unknown) => e);
    expect(sdk).toBeInstanceOf(McpError);
  });

  it('proxies an upstream on the older SSE transport', async () => {
    expect(
      (await admin('POST', '/v1/mcp-integrations', { name: 'SSE upstream', slug: 'sse-up', url: `${fake.url}/sse`, transport: 'sse' }))
        .status,
    ).toBe(201);
    expect(
      (
        await admin('POST', '/v1/mcp-servers', {
          name: 'Legacy',
          slug: 'legacy',
          mcp_integration_id: 'sse-up',
          tools: { allow: ['echo', 'progress'] },
        })
      ).status,
    ).toBe(201);
    const { client } = await connect('legacy');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'progress']);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'over sse' } })).content).toEqual([
      { type: 'text', text: JSON.stringify({ text: 'over sse' }) },
    ]);
    expect((await client.readResource({ uri: 'fake://readme' })).contents[0]).toMatchObject({ text: 'hello resource' });
    await client.close();
  });

  it('an SSE upstream that refuses a posted message gets its status in a JSON-RPC error, and the gateway keeps serving', async () => {
    // Opens the stream and names its message endpoint, then answers every posted message 500. The transport reports
    // such a failure to the link before throwing it; that once left a rejected answer unhandled, which ended the process.
    const refusing = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write('event: endpoint\ndata: /messages?sessionId=s1\n\n');
        return;
      }
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream broke');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => void stray.push(reason);
    process.on('unhandledRejection', onStray);
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/sse`;
      expect(
        (await admin('POST', '/v1/mcp-integrations', { name: 'SSE refusing', slug: 'sse-refusing-up', url, transport: 'sse' })).status,
      ).toBe(201);
      expect(
        (await admin('POST', '/v1/mcp-servers', { name: 'SSE refusing', slug: 'sse-refusing', mcp_integration_id: 'sse-refusing-up' }))
          .status,
      ).toBe(201);
      const init = await post(
        'sse-refusing',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      );
      expect(init.status).toBe(200);
      expect(init.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.stringContaining('HTTP 500') } });
      // No rejection was left unhandled (in the gateway's own process it would have ended it), and the gateway still answers.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stray).toEqual([]);
      const { client } = await connect('legacy');
      expect((await client.callTool({ name: 'echo', arguments: { text: 'still up' } })).content).toEqual([
        { type: 'text', text: JSON.stringify({ text: 'still up' }) },
      ]);
      await client.close();
    } finally {
      process.off('unhandledRejection', onStray);
      refusing.closeAllConnections();
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('another workspace sees neither the server nor its sessions; default_user_access deny keeps users out', async () => {
    const server = await admin('GET', '/v1/mcp-servers/files');
    expect((await callAs(gw, otherKey, 'GET', `/v1/mcp-servers/${server.body.id}`)).status).toBe(404);
    expect((await callAs(gw, otherKey, 'PUT', `/v1/mcp-servers/${server.body.id}`, { name: 'x' })).status).toBe(404);
    const res = await fetch(`${gw.url}/v1/mcp/files/mcp`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': otherKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(404);
    // A user key of a workspace member: allowed by default, refused with default_user_access deny.
    const user = await admin('POST', '/v1/users', { email: 'mcp-member@example.com', workspaces: [{ id: 'default', role: 'member' }] });
    const key = await admin('POST', '/v1/api-keys', {
      name: 'member',
      type: 'workspace-user',
      user_id: user.body.id,
      scopes: ['mcp.invoke'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const { client } = await connect('files', key.body.key);
    expect((await client.listTools()).tools.length).toBe(2);
    await client.close();
    expect((await admin('PUT', '/v1/mcp-servers/files', { default_user_access: 'deny' })).status).toBe(200);
    const denied = await connect('files', key.body.key).catch((e: unknown) => e);
    expect((denied as { code: number }).code).toBe(403);
    expect(String(denied)).toContain('default_user_access');
    expect((await admin('PUT', '/v1/mcp-servers/files', { default_user_access: 'allow' })).status).toBe(200);
    // A key without mcp.invoke is refused.
    const noScope = await admin('POST', '/v1/api-keys', { name: 'no-mcp', type: 'workspace-service', scopes: ['completions.write'] });
    const refused = await fetch(`${gw.url}/v1/mcp/files/mcp`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': noScope.body.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('mcp.invoke');
  });

  it('workspace managers write MCP integrations and servers while managersWriteWsMcpIntegrations / managersWriteMcpServers are on', async () => {
    const user = await admin('POST', '/v1/users', { email: 'mcp-manager@example.com', workspaces: [{ id: 'default', role: 'manager' }] });
    const key = await admin('POST', '/v1/api-keys', {
      name: 'manager',
      type: 'workspace-user',
      user_id: user.body.id,
      scopes: ['mcp_servers.read', 'mcp_servers.write', 'mcp.invoke'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const as = (method: string, path: string, body?: unknown) => callAs(gw, key.body.key, method, path, body);
    const integration = { name: 'mgr', url: `${fake.url}/mcp`, workspace_id: 'default' };
    expect((await as('POST', '/v1/mcp-integrations', { ...integration, slug: 'mgr-1' })).status).toBe(201);
    expect((await as('POST', '/v1/mcp-servers', { name: 'mgr', slug: 'mgr-1', mcp_integration_id: 'mgr-1' })).status).toBe(201);
    // Organisation-level MCP integrations stay with organisation owners and admins.
    const orgLevel = await as('POST', '/v1/mcp-integrations', { name: 'org', url: `${fake.url}/mcp` });
    expect(orgLevel.status).toBe(403);
    const ws = (await admin('GET', '/v1/workspaces/default')).body;
    try {
      expect((await admin('PUT', `/v1/workspaces/${ws.id}`, { settings: { managersWriteWsMcpIntegrations: false } })).status).toBe(200);
      const refused = await as('POST', '/v1/mcp-integrations', { ...integration, slug: 'mgr-2' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain('managersWriteWsMcpIntegrations');
      expect((await as('POST', '/v1/mcp-servers', { name: 'mgr', slug: 'mgr-2', mcp_integration_id: 'mgr-1' })).status).toBe(201);
      expect((await admin('PUT', `/v1/workspaces/${ws.id}`, { settings: { managersWriteMcpServers: false } })).status).toBe(200);
      await expect
        .poll(async () => (await as('POST', '/v1/mcp-servers', { name: 'mgr', slug: 'mgr-3', mcp_integration_id: 'mgr-1' })).status)
        .toBe(403);
      expect((await as('GET', '/v1/mcp-servers/mgr-2')).status).toBe(200);
    } finally {
      await admin('PUT', `/v1/workspaces/${ws.id}`, { settings: {} });
    }
    for (const slug of ['mgr-1', 'mgr-2']) expect((await admin('DELETE', `/v1/mcp-servers/${slug}`)).status).toBe(200);
  });

  it('refuses bad input with a clear 4xx', async () => {
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/v1/mcp-integrations', { name: 'x', url: 'http://10.1.2.3/mcp' }, 400, 'url'],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: 'not a url' }, 400, 'url'],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${fake.url}/mcp`, auth_type: 'basic' }, 400, 'auth_type'],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${fake.url}/mcp`, auth_type: 'headers' }, 400, 'headers'],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${fake.url}/mcp`, headers: { 'Mcp-Session-Id': 'x' } },
        400,
        'headers.Mcp-Session-Id',
      ],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${fake.url}/mcp`, headers: { 'bad header': 'x' } }, 400, 'headers.bad header'],
      ['POST', '/v1/mcp-integrations', { name: 'x', url: `${fake.url}/mcp`, transport: 'websocket' }, 400, 'transport'],
      [
        'POST',
        '/v1/mcp-integrations',
        { name: 'x', url: `${fake.url}/mcp`, secret_mappings: [{ target_field: 'headers.X-Key', secret_reference_id: 'unknown-ref' }] },
        400,
        'secret_mappings[0].secret_reference_id',
      ],
      ['POST', '/v1/mcp-integrations', { name: 'dup', slug: 'fake-up', url: `${fake.url}/mcp` }, 409, 'slug'],
      ['POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: 'nope' }, 404, 'mcp_integration_id'],
      ['POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: 'fake-up', tools: { allow: ['a'], deny: ['a'] } }, 400, 'tools.deny[0]'],
      ['POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: 'fake-up', tools: { deny: ['a', 'a'] } }, 400, 'tools.deny[1]'],
      ['POST', '/v1/mcp-servers', { name: 'x', slug: 'files', mcp_integration_id: 'fake-up' }, 409, 'slug'],
      ['POST', '/v1/mcp-servers', { name: 'x', slug: 'Not A Slug', mcp_integration_id: 'fake-up' }, 400, 'slug'],
      ['DELETE', '/v1/mcp-integrations/fake-up', undefined, 409, 'id'],
      ['GET', '/v1/mcp-servers/unknown', undefined, 404, 'id'],
    ];
    for (const [method, path, body, status, param] of cases) {
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error.param ?? '', JSON.stringify(res.body)).toContain(param);
    }
  });

  it('deleting a server removes its endpoint; its integration can then be deleted', async () => {
    expect((await admin('POST', '/v1/mcp-integrations', { name: 'Tmp', slug: 'tmp-up', url: `${fake.url}/mcp` })).status).toBe(201);
    expect((await admin('POST', '/v1/mcp-servers', { name: 'Tmp', slug: 'tmp', mcp_integration_id: 'tmp-up' })).status).toBe(201);
    const { client } = await connect('tmp');
    await client.close();
    expect((await admin('DELETE', '/v1/mcp-servers/tmp')).body).toMatchObject({ object: 'mcp_server', deleted: true });
    expect((await post('tmp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }))).status).toBe(404);
    expect((await admin('DELETE', '/v1/mcp-integrations/tmp-up')).status).toBe(200);
    expect((await admin('GET', '/v1/mcp-integrations/tmp-up')).status).toBe(404);
  });
});
