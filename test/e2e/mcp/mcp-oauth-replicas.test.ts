import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startOAuthUpstream, type OAuthUpstream } from '../../fakes/mcp/oauth-upstream.js';
import { authorizeAs } from '../../fakes/oidc/browser.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Two replicas on one PostgreSQL schema and one Redis refresh a user's upstream token once between
 * them: the authorization server rotates refresh tokens, so a second refresh with the same token would
 * be refused and revoke the grant (the user would be asked to connect again).
 */
describe('MCP upstream OAuth across two replicas sharing PostgreSQL and Redis', () => {
  let one: TestGateway;
  let two: TestGateway;
  let up: OAuthUpstream;
  const clock = new FakeClock(Date.now());
  let userKey: string;

  async function client(gw: TestGateway): Promise<Client> {
    const c = new Client({ name: 'oauth-replicas', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/tools/mcp`), {
        requestInit: { headers: { 'x-gateway-api-key': userKey } },
      }),
    );
    return c;
  }

  async function whoami(c: Client): Promise<string> {
    const r = await c.callTool({ name: 'whoami', arguments: {} });
    return (r.content as Array<{ text: string }>)[0]!.text;
  }

  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };
    one = await startGateway({ store: 'postgres', env, clock });
    two = await startGateway({ store: 'postgres', pgSchema: one.pgSchema, env: { ...env, GATEWAY_ADMIN_KEY: one.adminKey }, clock });
    up = await startOAuthUpstream(`${one.url}/v1/mcp/oauth/callback`);
    const admin = (method: string, path: string, body?: unknown) => callAs(one, one.adminKey, method, path, body);
    expect(
      (
        await admin('POST', '/v1/mcp-integrations', {
          name: 'up',
          slug: 'up',
          url: up.mcpUrl,
          auth_type: 'oauth',
          oauth: { client_id: up.clientId, client_secret: up.clientSecret },
        })
      ).status,
    ).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', { name: 'tools', slug: 'tools', mcp_integration_id: 'up' });
    const user = await admin('POST', '/v1/users', { email: 'replica-oauth@example.com', workspaces: [{ id: 'default', role: 'member' }] });
    userKey = (await admin('POST', '/v1/api-keys', { name: 'u', type: 'workspace-user', user_id: user.body.id, scopes: ['mcp.invoke'] }))
      .body.key;
    await two.gateway.deps.runtime.changed();
    const started = await callAs(one, userKey, 'POST', `/v1/mcp-servers/${server.body.id}/connect`);
    const res = await fetch(await authorizeAs(started.body.authorization_url, 'replica-account', `${one.url}/v1/mcp/oauth/callback`));
    expect(res.status, await res.text()).toBe(200);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await up?.close();
  });

  it('concurrent calls on both replicas after expiry make one refresh', async () => {
    const a = await client(one);
    const b = await client(two);
    for (let round = 1; round <= 3; round++) {
      const before = up.refreshes;
      clock.advance(2 * 3_600_000);
      const answers = await Promise.all([whoami(a), whoami(b), whoami(a), whoami(b)]);
      expect(answers).toEqual(Array(4).fill('replica-account'));
      expect(up.refreshes, `round ${round}`).toBe(before + 1);
    }
    await a.close();
    await b.close();
  });
});
