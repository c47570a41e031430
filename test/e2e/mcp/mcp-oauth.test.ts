import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';
import { getMcpConnection, saveMcpConnection } from '../../../src/infra/store/repos/mcp.js';
import { uuid } from '../../../src/foundation/lib/ids.js';

const CLIENT_SECRET = 'oauth-client-secret-0123456789';
const USER_TOKEN = 'user-access-token-abcdef0123456789';

/**
 * `auth_type: oauth` MCP integrations: settings stored (client secret sealed, answered masked), and the
 * proxy sending each user's own upstream token, never the gateway key. Runs on SQLite and PostgreSQL.
 */
describe('MCP gateway: per-user upstream OAuth', () => {
  let gw: TestGateway;
  let fake: FakeMcp;
  let userId: string;
  let userKey: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  async function connect(key: string, server = 'oauth-srv'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/${server}/mcp`), {
      requestInit: { headers: { 'x-gateway-api-key': key } },
    });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  /** A user's connection as the connect flow stores it: the access token sealed with its row's context. */
  async function storeConnection(user: string, expiresAt: number | null, token = USER_TOKEN, slug = 'oauth-up'): Promise<void> {
    const deps = gw.gateway.deps;
    const integration = await deps.store.db
      .selectFrom('mcp_integrations')
      .select(['id', 'organisation_id'])
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow();
    const id = uuid();
    await saveMcpConnection(deps.store.db, {
      id,
      organisation_id: integration.organisation_id,
      mcp_integration_id: integration.id,
      user_id: user,
      access_token_ciphertext: deps.secrets.encrypt(token, `${id}:access`),
      refresh_token_ciphertext: '',
      expires_at: expiresAt,
      scopes: 'tools',
      connected_at: Date.now(),
      updated_at: Date.now(),
      oauth_client_id: null,
    });
  }

  beforeAll(async () => {
    fake = await startFakeMcp();
    gw = await startGateway();
    const created = await admin('POST', '/v1/mcp-integrations', {
      name: 'OAuth upstream',
      slug: 'oauth-up',
      url: `${fake.url}/mcp`,
      auth_type: 'oauth',
      oauth: { client_id: 'gateway-client', client_secret: CLIENT_SECRET, scopes: ['tools', 'offline_access'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await admin('POST', '/v1/mcp-servers', { name: 'OAuth', slug: 'oauth-srv', mcp_integration_id: 'oauth-up' })).status).toBe(201);
    const user = await admin('POST', '/v1/users', { email: 'mcp-oauth-user@example.com', workspaces: [{ id: 'default', role: 'member' }] });
    userId = user.body.id;
    const key = await admin('POST', '/v1/api-keys', {
      name: 'oauth user',
      type: 'workspace-user',
      user_id: userId,
      scopes: ['mcp.invoke'],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    userKey = key.body.key;
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('stores the OAuth settings with the client secret sealed, answered and audited without it', async () => {
    const got = await admin('GET', '/v1/mcp-integrations/oauth-up');
    expect(got.body).toMatchObject({
      auth_type: 'oauth',
      headers: {},
      oauth: { client_id: 'gateway-client', client_secret: 'oau…6789', scopes: ['tools', 'offline_access'] },
    });
    const row = await gw.gateway.deps.store.db
      .selectFrom('mcp_integrations')
      .selectAll()
      .where('slug', '=', 'oauth-up')
      .executeTakeFirstOrThrow();
    expect(isSealed(row.oauth_secret_ciphertext)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(CLIENT_SECRET);
    const audit = await gw.gateway.deps.store.db.selectFrom('audit_logs').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(audit)).not.toContain('oau…6789');
    // Other integrations answer oauth: null.
    expect((await admin('POST', '/v1/mcp-integrations', { name: 'plain', slug: 'plain-up', url: `${fake.url}/mcp` })).body).toMatchObject({
      auth_type: 'none',
      oauth: null,
    });
  });

  it('refuses bad OAuth settings with a clear 400', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', url: `${fake.url}/mcp`, auth_type: 'headers', headers: { A: 'b' }, oauth: { client_id: 'c' } }, 'oauth'],
      [{ name: 'x', url: `${fake.url}/mcp`, oauth: {} }, 'oauth'],
      [{ name: 'x', url: `${fake.url}/mcp`, auth_type: 'oauth', oauth: { client_secret: 's' } }, 'oauth.client_secret'],
      [
        { name: 'x', url: `${fake.url}/mcp`, auth_type: 'oauth', oauth: { authorization_server: 'http://10.1.2.3/' } },
        'oauth.authorization_server',
      ],
      [{ name: 'x', url: `${fake.url}/mcp`, auth_type: 'oauth', oauth: { client_id: 'c', token: 't' } }, 'oauth'],
      [{ name: 'x', url: `${fake.url}/mcp`, auth_type: 'oauth', oauth: { scopes: ['has space'] } }, 'oauth.scopes'],
    ];
    for (const [body, param] of cases) {
      const res = await admin('POST', '/v1/mcp-integrations', body);
      expect(res.status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.param ?? '', JSON.stringify(res.body)).toContain(param);
    }
  });

  it('a user without a connection is told to connect (JSON-RPC error, or 403 for a body without a request); a service key is told to use a user; nothing reaches the upstream', async () => {
    const before = fake.headers.length;
    const post = (key: string, message: unknown) =>
      fetch(`${gw.url}/v1/mcp/oauth-srv/mcp`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(message),
      });
    const ping = (key: string) => post(key, { jsonrpc: '2.0', id: 1, method: 'ping' });
    const rpcErrorOf = async (res: Response) => {
      expect(res.status).toBe(200);
      return (
        (await res.json()) as {
          id: number;
          error: { code: number; message: string; data: { status: number; code: string; authorization_url?: string } };
        }
      ).error;
    };
    const noConnection = await rpcErrorOf(await ping(userKey));
    expect(noConnection.data).toMatchObject({ status: 403, code: 'mcp_connection_required' });
    expect(noConnection.message).toContain('connect');
    // This upstream publishes no OAuth metadata: no authorization URL can be made, and the error says what to do anyway.
    expect(noConnection.data.authorization_url).toBeUndefined();
    // A batch gets one error per request.
    const batch = (await (
      await post(userKey, [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ])
    ).json()) as Array<{ id: number; error: { data: { code: string } } }>;
    expect(batch.map((m) => [m.id, m.error.data.code])).toEqual([
      [1, 'mcp_connection_required'],
      [2, 'mcp_connection_required'],
    ]);
    // A notification alone has nothing to answer: HTTP 403 in the gateway's error shape.
    const notification = await post(userKey, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(403);
    expect(((await notification.json()) as { error: { code: string } }).error.code).toBe('mcp_connection_required');
    const service = await rpcErrorOf(await ping(gw.adminKey));
    expect(service.message).toContain("user's key");
    // An expired connection without a refresh token asks for a new one too.
    await storeConnection(userId, Date.now() - 1000);
    expect((await rpcErrorOf(await ping(userKey))).data.code).toBe('mcp_connection_required');
    expect(fake.headers.filter((h) => h.authorization !== undefined).length).toBe(
      fake.headers.slice(0, before).filter((h) => h.authorization !== undefined).length,
    );
  });

  it("a connected user's calls carry the user's token upstream, never the gateway key; deactivating the user revokes the connection", async () => {
    await storeConnection(userId, Date.now() + 3_600_000);
    const before = fake.headers.length;
    const client = await connect(userKey);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: JSON.stringify({ text: 'hi' }) },
    ]);
    await client.close();
    const sent = fake.headers.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const h of sent) {
      expect(h.authorization).toBe(`Bearer ${USER_TOKEN}`);
      expect(JSON.stringify(h)).not.toContain(userKey);
    }
    const integration = await gw.gateway.deps.store.db
      .selectFrom('mcp_integrations')
      .select('id')
      .where('slug', '=', 'oauth-up')
      .executeTakeFirstOrThrow();
    expect((await admin('PUT', `/v1/users/${userId}`, { status: 'deactivated' })).status).toBe(200);
    expect(await getMcpConnection(gw.gateway.deps.store.db, integration.id, userId)).toBeUndefined();
    // Deleting a user revokes theirs too.
    const other = await admin('POST', '/v1/users', {
      email: 'mcp-oauth-other@example.com',
      workspaces: [{ id: 'default', role: 'member' }],
    });
    await storeConnection(other.body.id, null);
    expect(await getMcpConnection(gw.gateway.deps.store.db, integration.id, other.body.id)).toBeDefined();
    expect((await admin('DELETE', `/v1/users/${other.body.id}`)).status).toBe(200);
    expect(await getMcpConnection(gw.gateway.deps.store.db, integration.id, other.body.id)).toBeUndefined();
  });

  it("over an upstream speaking HTTP+SSE, each user's stream and messages carry that user's own token, never a gateway key, and one user's stream is not another's", async () => {
    const created = await admin('POST', '/v1/mcp-integrations', {
      name: 'OAuth SSE upstream',
      slug: 'oauth-sse',
      url: `${fake.url}/sse`,
      transport: 'sse',
      auth_type: 'oauth',
      oauth: { client_id: 'gateway-client', client_secret: CLIENT_SECRET, scopes: ['tools'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(
      (await admin('POST', '/v1/mcp-servers', { name: 'OAuth SSE', slug: 'oauth-sse-srv', mcp_integration_id: 'oauth-sse' })).status,
    ).toBe(201);
    const users: Array<{ key: string; token: string }> = [];
    for (const name of ['sse-a', 'sse-b']) {
      const user = await admin('POST', '/v1/users', {
        email: `mcp-oauth-${name}@example.com`,
        workspaces: [{ id: 'default', role: 'member' }],
      });
      const key = await admin('POST', '/v1/api-keys', { name, type: 'workspace-user', user_id: user.body.id, scopes: ['mcp.invoke'] });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const token = `${name}-access-token-0123456789abcdef`;
      await storeConnection(user.body.id, Date.now() + 3_600_000, token, 'oauth-sse');
      users.push({ key: key.body.key, token });
    }
    for (const { key, token } of users) {
      const before = fake.headers.length;
      const client = await connect(key, 'oauth-sse-srv');
      expect((await client.callTool({ name: 'echo', arguments: { text: token.slice(0, 5) } })).content).toEqual([
        { type: 'text', text: JSON.stringify({ text: token.slice(0, 5) }) },
      ]);
      await client.close();
      const sent = fake.headers.slice(before);
      // The stream (GET) and at least initialize, initialized and the call (POSTs) reached the upstream.
      expect(sent.filter((h) => h.accept?.includes('text/event-stream')).length).toBeGreaterThan(0);
      expect(sent.length).toBeGreaterThanOrEqual(4);
      for (const h of sent) {
        expect(h.authorization).toBe(`Bearer ${token}`);
        for (const u of users) expect(JSON.stringify(h)).not.toContain(u.key);
      }
    }
  });
});
