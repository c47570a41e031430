import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startOAuthUpstream, type OAuthUpstream } from '../../fakes/mcp/oauth-upstream.js';
import { authorizeAs } from '../../fakes/oidc/browser.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { mcpUser } from './mcp-user.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Dynamic client registration (RFC 7591) for upstream OAuth (docs/mcp.md, "Upstream OAuth"): an integration
 * without `oauth.client_id` whose authorization server (`oidc-provider` with open registration) has a
 * `registration_endpoint` gets a client registered by the gateway at the first connect, stored with its
 * secret sealed, used by every user, for refreshes and revocations, and registered anew when the
 * integration's OAuth settings change; a server without registration is a 409 naming `oauth.client_id`.
 * Runs on SQLite and PostgreSQL.
 */
describe('MCP gateway: upstream OAuth with dynamic client registration', () => {
  let gw: TestGateway;
  let up: OAuthUpstream;
  let plain: OAuthUpstream;
  let clock: FakeClock;
  const lines: string[] = [];
  let serverId: string;
  const users: Record<string, { id: string; key: string }> = {};
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
  const callback = () => `${gw.url}/v1/mcp/oauth/callback`;
  const clients = () => gw.gateway.deps.store.db.selectFrom('mcp_oauth_clients').selectAll().execute();

  async function start(key: string, server = serverId): Promise<{ status: number; body: Json }> {
    return callAs(gw, key, 'POST', `/v1/mcp-servers/${server}/connect`);
  }

  async function connect(key: string, account: string): Promise<Json> {
    const started = await start(key);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const res = await fetch(await authorizeAs(started.body.authorization_url, account, callback()));
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  async function whoami(key: string): Promise<string> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/dcr-tools/mcp`), {
      requestInit: { headers: { 'x-gateway-api-key': key } },
    });
    const c = new Client({ name: 'dcr-test', version: '1.0.0' });
    await c.connect(transport);
    try {
      const r = await c.callTool({ name: 'whoami', arguments: {} });
      return (r.content as Array<{ text: string }>)[0]!.text;
    } finally {
      await c.close();
    }
  }

  beforeAll(async () => {
    clock = new FakeClock(Date.now());
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({ clock, logger: createLogger('debug', { destination }) });
    up = await startOAuthUpstream(callback(), { registration: true });
    plain = await startOAuthUpstream(callback());
    const integration = await admin('POST', '/v1/mcp-integrations', {
      name: 'DCR tools',
      slug: 'dcr-tools-up',
      url: up.mcpUrl,
      auth_type: 'oauth',
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', { name: 'DCR tools', slug: 'dcr-tools', mcp_integration_id: 'dcr-tools-up' });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
    serverId = server.body.id;
    for (const name of ['alice', 'bob', 'carol']) users[name] = await mcpUser(gw, `${name}-dcr@example.com`);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
    await plain?.close();
  });

  it('registers the gateway at the first connect (once, even for connects at the same moment) and keeps the client secret sealed', async () => {
    const [a, b] = await Promise.all([start(users.alice!.key), start(users.bob!.key)]);
    expect([a.status, b.status], JSON.stringify([a.body, b.body])).toEqual([200, 200]);
    const stored = await clients();
    expect(stored).toHaveLength(1);
    const row = stored[0]!;
    expect(row.issuer).toBe(up.issuer);
    expect(row.redirect_uri).toBe(callback());
    expect(row.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(isSealed(row.client_secret_ciphertext)).toBe(true);
    // Both users were handed the stored client, whichever registration won.
    for (const r of [a, b]) expect(new URL(r.body.authorization_url).searchParams.get('client_id')).toBe(row.client_id);
    expect(up.registrations).toBeGreaterThanOrEqual(1);
    const registrations = up.registrations;
    await start(users.carol!.key);
    expect(up.registrations).toBe(registrations);
  });

  it('connects and calls tools as the registered client; a refresh and a revocation authenticate as it too', async () => {
    const connected = await connect(users.alice!.key, 'alice-account');
    expect(connected).toMatchObject({ object: 'mcp_connection', user_id: users.alice!.id, connected: true });
    const [row] = await clients();
    const db = gw.gateway.deps.store.db;
    const connection = await db.selectFrom('mcp_connections').selectAll().where('user_id', '=', users.alice!.id).executeTakeFirstOrThrow();
    expect(connection.oauth_client_id).toBe(row!.client_id);
    expect(await whoami(users.alice!.key)).toBe('alice-account');
    const refreshes = up.refreshes;
    clock.advance(2 * 3_600_000);
    expect(await whoami(users.alice!.key)).toBe('alice-account');
    expect(up.refreshes).toBe(refreshes + 1);
    const revoked = up.revokedGrants;
    expect((await callAs(gw, users.alice!.key, 'DELETE', `/v1/mcp-servers/${serverId}/connections`)).status).toBe(200);
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(revoked + 1);
    // The registered client's secret appears in no log line.
    const secret = gw.gateway.deps.secrets.decrypt(row!.client_secret_ciphertext, `${row!.id}:client`);
    expect(secret.length).toBeGreaterThan(10);
    expect(lines.join('')).not.toContain(secret);
  });

  it('a change of the OAuth settings drops the registration with the connections, revoking their grants as the old client; the next connect registers again', async () => {
    await connect(users.bob!.key, 'bob-account');
    const before = (await clients())[0]!;
    const registrations = up.registrations;
    const revoked = up.revokedGrants;
    const refusals = up.refusedRevocations.length;
    const changed = await admin('PUT', '/v1/mcp-integrations/dcr-tools-up', { oauth: { scopes: ['tools'] } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await clients()).toHaveLength(0);
    expect(await gw.gateway.deps.store.db.selectFrom('mcp_connections').selectAll().execute()).toHaveLength(0);
    // Once committed, bob's grant is revoked by the client it was issued to, though its registration row is gone
    // (a revocation authenticated as another client would be refused and leave the grant alive).
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(revoked + 1);
    expect(up.refusedRevocations.slice(refusals).filter((e) => e !== 'unsupported_token_type')).toEqual([]);
    await connect(users.bob!.key, 'bob-account');
    expect(up.registrations).toBe(registrations + 1);
    const after = await clients();
    expect(after).toHaveLength(1);
    expect(after[0]!.client_id).not.toBe(before.client_id);
    expect(await whoami(users.bob!.key)).toBe('bob-account');
    // A second change in the same millisecond (the fake clock stands still, so updated_at is unchanged) is
    // discovered anew as well: the gateway asks for the new scopes, and bob's grant is revoked again.
    const revokedAgain = up.revokedGrants;
    const again = await admin('PUT', '/v1/mcp-integrations/dcr-tools-up', { oauth: { scopes: ['openid', 'tools'] } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(revokedAgain + 1);
    const started = await start(users.bob!.key);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(new URL(started.body.authorization_url).searchParams.get('scope')).toBe('openid tools');
  });

  it("deleting the integration revokes every user's grant as the registered client once the deletion commits", async () => {
    for (const name of ['alice', 'bob', 'carol']) await connect(users[name]!.key, `${name}-account`);
    const db = gw.gateway.deps.store.db;
    const revoked = up.revokedGrants;
    // Refused while a server uses it: nothing removed, nothing revoked.
    expect((await admin('DELETE', '/v1/mcp-integrations/dcr-tools-up')).status).toBe(409);
    expect(await db.selectFrom('mcp_connections').select('id').execute()).toHaveLength(3);
    expect((await admin('DELETE', `/v1/mcp-servers/${serverId}`)).status).toBeLessThan(300);
    expect((await admin('DELETE', '/v1/mcp-integrations/dcr-tools-up')).status).toBeLessThan(300);
    expect(await db.selectFrom('mcp_connections').selectAll().execute()).toHaveLength(0);
    expect(await clients()).toHaveLength(0);
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(revoked + 3);
    expect(lines.join('')).not.toContain('revocation of a dropped connection failed');
  });

  it('an integration without oauth.client_id whose authorization server offers no registration is a 409 naming oauth.client_id', async () => {
    expect(
      (await admin('POST', '/v1/mcp-integrations', { name: 'No DCR', slug: 'no-dcr-up', url: plain.mcpUrl, auth_type: 'oauth' })).status,
    ).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', { name: 'No DCR', slug: 'no-dcr', mcp_integration_id: 'no-dcr-up' });
    expect(server.status).toBe(201);
    const refused = await start(users.alice!.key, server.body.id);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toMatchObject({ type: expect.any(String), param: 'oauth.client_id' });
    expect(refused.body.error.message).toContain('registration_endpoint');
    expect(plain.registrations).toBe(0);
  });
});
