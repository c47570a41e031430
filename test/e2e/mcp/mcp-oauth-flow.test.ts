import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { TEST_STORE, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startOAuthUpstream, type OAuthUpstream } from '../../fakes/mcp/oauth-upstream.js';
import { authorizeAs } from '../../fakes/oidc/browser.js';
import { callAs, insertWorkspace } from '../tenancy/tenant-helpers.js';
import { mcpUser } from './mcp-user.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Per-user upstream OAuth end to end (docs/mcp.md, "Upstream OAuth"): an SDK MCP server accepting only
 * JWT access tokens of `oidc-provider`, discovered from its protected-resource metadata; users connect
 * through the gateway's authorization URL and callback (PKCE S256, single-use state), then call tools
 * with their own tokens, refreshed ahead of expiry (one refresh for concurrent calls: the provider
 * rotates refresh tokens, so a second refresh with the same token would revoke the grant) and after an
 * upstream 401; revocation asks for a new connection. Runs on SQLite and PostgreSQL.
 */
describe('MCP gateway: per-user upstream OAuth with a real authorization server', () => {
  let gw: TestGateway;
  let up: OAuthUpstream;
  let clock: FakeClock;
  const lines: string[] = [];
  let serverId: string;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
  const callback = () => `${gw.url}/v1/mcp/oauth/callback`;

  async function client(key: string, server = 'oauth-tools'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/${server}/mcp`), {
      requestInit: { headers: { 'x-gateway-api-key': key } },
    });
    const c = new Client({ name: 'oauth-flow-test', version: '1.0.0' });
    await c.connect(transport);
    return c;
  }

  async function whoami(c: Client): Promise<string> {
    const r = await c.callTool({ name: 'whoami', arguments: {} });
    return (r.content as Array<{ text: string }>)[0]!.text;
  }

  /** A user's connect: the authorization URL from the gateway, the browser steps at the provider, the callback URL (not yet called). */
  async function authorize(key: string, account: string): Promise<string> {
    const started = await callAs(gw, key, 'POST', `/v1/mcp-servers/${serverId}/connect`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    return authorizeAs(started.body.authorization_url, account, callback());
  }

  async function connectAs(who: { key: string }, account: string): Promise<Json> {
    const res = await fetch(await authorize(who.key, account));
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  /** The JSON-RPC error an MCP client gets for a call needing a connection. */
  async function connectionRequired(key: string): Promise<Json> {
    const err = await client(key).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    return (err as McpError).data as Json;
  }

  beforeAll(async () => {
    clock = new FakeClock(Date.now());
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({ clock, logger: createLogger('debug', { destination }) });
    up = await startOAuthUpstream(callback());
    const integration = await admin('POST', '/v1/mcp-integrations', {
      name: 'OAuth tools',
      slug: 'oauth-tools-up',
      url: up.mcpUrl,
      auth_type: 'oauth',
      oauth: { client_id: up.clientId, client_secret: up.clientSecret },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', {
      name: 'OAuth tools',
      slug: 'oauth-tools',
      mcp_integration_id: 'oauth-tools-up',
    });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
    serverId = server.body.id;
    alice = await mcpUser(gw, 'alice-oauth@example.com');
    bob = await mcpUser(gw, 'bob-oauth@example.com');
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it('a user without a connection gets the authorization URL (discovered from the protected-resource metadata) in the JSON-RPC error; nothing is called as the user', async () => {
    const accepted = up.accepted.length;
    const data = await connectionRequired(alice.key);
    expect(data).toMatchObject({ status: 403, code: 'mcp_connection_required' });
    const url = new URL(data.authorization_url);
    expect(url.origin).toBe(up.issuer);
    expect(url.searchParams.get('client_id')).toBe(up.clientId);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('resource')).toBe(up.mcpUrl);
    expect(url.searchParams.get('redirect_uri')).toBe(callback());
    expect(url.searchParams.get('scope')).toBe('tools');
    expect(up.accepted.length).toBe(accepted);
    // The state is stored hashed, never as handed out.
    const rows = await gw.gateway.deps.store.db.selectFrom('mcp_oauth_states').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(url.searchParams.get('state')!);
  });

  it("connects through the authorization server and calls tools with the user's own token, never the gateway key", async () => {
    const connected = await connectAs(alice, 'alice-account');
    expect(connected).toMatchObject({ object: 'mcp_connection', server_id: serverId, user_id: alice.id, connected: true });
    expect(typeof connected.expires_at).toBe('string');
    const c = await client(alice.key);
    expect(await whoami(c)).toBe('alice-account');
    await c.close();
    const row = await gw.gateway.deps.store.db
      .selectFrom('mcp_connections')
      .selectAll()
      .where('user_id', '=', alice.id)
      .executeTakeFirstOrThrow();
    expect(isSealed(row.access_token_ciphertext) && isSealed(row.refresh_token_ciphertext)).toBe(true);
    expect(up.accepted.at(-1)).not.toContain(alice.key);
    const audit = await gw.gateway.deps.store.db.selectFrom('audit_logs').selectAll().where('action', '=', 'mcp_server.connect').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'user', actor_id: alice.id, resource_id: serverId });
  });

  it('refuses a replayed, unknown or missing state, and a callback completed by another user, with a clear 400', async () => {
    const replayUrl = await authorize(bob.key, 'bob-account');
    expect((await fetch(replayUrl)).status).toBe(200);
    const replayed = await fetch(replayUrl);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as Json).error).toMatchObject({ code: 'invalid_request', param: 'state' });
    const unknown = new URL(replayUrl);
    unknown.searchParams.set('state', 'not-a-state-we-issued');
    expect((await fetch(unknown)).status).toBe(400);
    const none = await fetch(callback());
    expect(none.status).toBe(400);
    expect(((await none.json()) as Json).error.param).toBe('state');
    // Bob's authorization completed with Alice's key (or a service key): refused, and the state is spent.
    const stolen = await authorize(bob.key, 'bob-account');
    const wrong = await fetch(stolen, { headers: { 'x-gateway-api-key': alice.key } });
    const wrongBody = (await wrong.json()) as Json;
    expect(wrong.status, JSON.stringify(wrongBody)).toBe(400);
    expect(wrongBody.error.message).toContain('another user');
    expect((await fetch(stolen)).status).toBe(400);
    // An invalid credential on the callback is a 401, not ignored.
    expect((await fetch(await authorize(bob.key, 'bob-account'), { headers: { 'x-gateway-api-key': 'nope' } })).status).toBe(401);
    // A state expires after ten minutes.
    const late = await authorize(bob.key, 'bob-account');
    clock.advance(11 * 60_000);
    expect((await fetch(late)).status).toBe(400);
  });

  it('refreshes ahead of expiry, once for two concurrent calls', async () => {
    const c = await client(alice.key);
    const before = up.refreshes;
    const oldToken = up.accepted.at(-1);
    clock.advance(2 * 3_600_000);
    const [a, b] = await Promise.all([whoami(c), whoami(c)]);
    expect([a, b]).toEqual(['alice-account', 'alice-account']);
    expect(up.refreshes).toBe(before + 1);
    expect(up.accepted.at(-1)).not.toBe(oldToken);
    // Within the new token's lifetime, no further refresh.
    await whoami(c);
    expect(up.refreshes).toBe(before + 1);
    await c.close();
  });

  it('an upstream 401 triggers one refresh and one retry', async () => {
    const c = await client(alice.key);
    const current = up.accepted.at(-1)!;
    const before = { refreshes: up.refreshes, refused: up.refused };
    up.refuseOnce.add(current);
    expect(await whoami(c)).toBe('alice-account');
    expect(up.refused).toBe(before.refused + 1);
    expect(up.refreshes).toBe(before.refreshes + 1);
    expect(up.accepted.at(-1)).not.toBe(current);
    await c.close();
  });

  it("a session stream (GET) refused with 401 renews the token once; the client never sees the upstream's 401", async () => {
    // A raw session (an SDK client would open its own session stream in the background and race this one).
    const headers = { 'x-gateway-api-key': alice.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${gw.url}/v1/mcp/oauth-tools/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(init.status, await init.text()).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    const current = up.accepted.at(-1)!;
    const before = { refreshes: up.refreshes, refused: up.refused };
    up.refuseGetOnce.add(current);
    const res = await fetch(`${gw.url}/v1/mcp/oauth-tools/mcp`, {
      headers: {
        'x-gateway-api-key': alice.key,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        accept: 'text/event-stream',
      },
    });
    await res.body?.cancel();
    // Renewed, retried, and answered as the upstream answered the retry (this stateless upstream offers no stream: 405).
    expect(res.status).toBe(405);
    expect(up.refused).toBe(before.refused + 1);
    expect(up.refreshes).toBe(before.refreshes + 1);
    expect(up.accepted.at(-1)).not.toBe(current);
  });

  it("over an upstream speaking HTTP+SSE: connects for that resource, calls with the user's token, and a posted message or a stream refused with 401 renews the token once and reopens the stream", async () => {
    const integration = await admin('POST', '/v1/mcp-integrations', {
      name: 'OAuth SSE tools',
      slug: 'oauth-sse-up',
      url: up.sseUrl,
      transport: 'sse',
      auth_type: 'oauth',
      oauth: { client_id: up.clientId, client_secret: up.clientSecret },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await admin('POST', '/v1/mcp-servers', {
      name: 'OAuth SSE tools',
      slug: 'oauth-sse',
      mcp_integration_id: 'oauth-sse-up',
    });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
    const started = await callAs(gw, alice.key, 'POST', `/v1/mcp-servers/${server.body.id}/connect`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(new URL(started.body.authorization_url).searchParams.get('resource')).toBe(up.sseUrl);
    const connected = await fetch(await authorizeAs(started.body.authorization_url, 'alice-account', callback()));
    expect(connected.status, await connected.text()).toBe(200);
    const c = await client(alice.key, 'oauth-sse');
    expect(await whoami(c)).toBe('alice-account');
    const current = up.accepted.at(-1)!;
    const before = { refreshes: up.refreshes, refused: up.refused, accepted: up.accepted.length };
    up.refuseOnce.add(current);
    expect(await whoami(c)).toBe('alice-account');
    expect(up.refused).toBe(before.refused + 1);
    expect(up.refreshes).toBe(before.refreshes + 1);
    const renewed = up.accepted.slice(before.accepted);
    expect(renewed.length).toBeGreaterThanOrEqual(2);
    for (const token of renewed) expect(token).not.toBe(current);
    await c.close();
    // A new session opens its own stream: that GET refused with 401 renews once too.
    const latest = up.accepted.at(-1)!;
    const again = { refreshes: up.refreshes, refused: up.refused };
    up.refuseGetOnce.add(latest);
    const d = await client(alice.key, 'oauth-sse');
    expect(await whoami(d)).toBe('alice-account');
    expect(up.refused).toBe(again.refused + 1);
    expect(up.refreshes).toBe(again.refreshes + 1);
    expect(up.accepted.at(-1)).not.toBe(latest);
    await d.close();
  });

  it('a refresh the authorization server refuses removes the connection and asks for a new one', async () => {
    await connectAs(bob, 'bob-account');
    const db = gw.gateway.deps.store.db;
    const row = await db.selectFrom('mcp_connections').selectAll().where('user_id', '=', bob.id).executeTakeFirstOrThrow();
    await db
      .updateTable('mcp_connections')
      .set({
        refresh_token_ciphertext: gw.gateway.deps.secrets.encrypt('a-refresh-token-it-never-issued', `${row.id}:refresh`),
        expires_at: clock.now() + 1000,
      })
      .where('id', '=', row.id)
      .execute();
    const data = await connectionRequired(bob.key);
    expect(data.code).toBe('mcp_connection_required');
    expect(data.authorization_url).toContain(up.issuer);
    expect(await db.selectFrom('mcp_connections').selectAll().where('user_id', '=', bob.id).executeTakeFirst()).toBeUndefined();
  });

  it('lists connections and revokes them: own only for a user key, user_id required for a service key, another workspace is 404', async () => {
    await connectAs(bob, 'bob-account');
    const list = await callAs(gw, alice.key, 'GET', `/v1/mcp-servers/${serverId}/connections?current_page=0&page_size=500`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total: 2 });
    expect(list.body.data.map((d: Json) => d.user_id).sort()).toEqual([alice.id, bob.id].sort());
    for (const d of list.body.data) expect(Object.keys(d).sort()).toEqual(['connected', 'connected_at', 'expires_at', 'user_id']);
    expect(list.body.data.every((d: Json) => d.connected === true)).toBe(true);
    const paged = await admin('GET', `/v1/mcp-servers/oauth-tools/connections?page_size=1&current_page=1`);
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.total).toBe(2);
    expect((await admin('GET', `/v1/mcp-servers/${serverId}/connections?page_size=501`)).status).toBe(400);
    expect((await admin('GET', `/v1/mcp-servers/${serverId}/connections?user=1`)).status).toBe(400);

    const otherWs = await insertWorkspace(gw, (await admin('GET', '/v1/organisation')).body.id, 'oauth-other');
    await gw.gateway.deps.runtime.reload();
    const outsider = await admin('POST', '/v1/api-keys', {
      name: 'outsider',
      type: 'workspace-service',
      workspace_id: otherWs,
      scopes: ['*'],
    });
    expect(outsider.status, JSON.stringify(outsider.body)).toBe(201);
    expect((await callAs(gw, outsider.body.key, 'GET', `/v1/mcp-servers/${serverId}/connections`)).status).toBe(404);
    expect((await callAs(gw, outsider.body.key, 'DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`)).status).toBe(404);
    expect((await callAs(gw, outsider.body.key, 'POST', `/v1/mcp-servers/${serverId}/connect`)).status).toBe(404);

    const notOwn = await callAs(gw, alice.key, 'DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`);
    expect(notOwn.status).toBe(403);
    const noUser = await admin('DELETE', `/v1/mcp-servers/${serverId}/connections`);
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.param).toBe('user_id');
    const bobs = await gw.gateway.deps.store.db
      .selectFrom('mcp_connections')
      .selectAll()
      .where('user_id', '=', bob.id)
      .executeTakeFirstOrThrow();
    const bobsRefresh = gw.gateway.deps.secrets.decrypt(bobs.refresh_token_ciphertext, `${bobs.id}:refresh`);
    const grantsRevoked = up.revokedGrants;
    const byService = await admin('DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`);
    expect(byService.status, JSON.stringify(byService.body)).toBe(200);
    expect(byService.body).toEqual({ object: 'mcp_connection', user_id: bob.id, deleted: true });
    // After the commit the authorization server revokes the refresh token (RFC 7009), which ends the grant; it
    // refuses to revoke the JWT access token (structured tokens cannot be revoked there), which changes nothing.
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(grantsRevoked + 1);
    await expect.poll(() => up.refusedRevocations.at(-1), { timeout: 5000 }).toBe('unsupported_token_type');
    const refresh = await fetch(`${up.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${up.clientId}:${up.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: bobsRefresh }),
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await admin('DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`)).status).toBe(404);
    expect((await connectionRequired(bob.key)).code).toBe('mcp_connection_required');

    const own = await callAs(gw, alice.key, 'DELETE', `/v1/mcp-servers/${serverId}/connections`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await connectionRequired(alice.key)).authorization_url).toContain(up.issuer);
    const audit = await gw.gateway.deps.store.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'mcp_server.revoke_connection')
      .execute();
    expect(audit).toHaveLength(2);
  });

  it('a revoke whose transaction rolls back keeps the connection and never revokes upstream (after-commit work is dropped)', async () => {
    await connectAs(bob, 'bob-account');
    const db = gw.gateway.deps.store.db;
    const pg = TEST_STORE === 'postgres';
    // The audit row of the revoke is refused by the store, after the action deleted the row and asked for its
    // after-commit revocation: the transaction rolls back.
    if (pg) {
      await sql
        .raw(
          `create function refuse_revoke_audit() returns trigger language plpgsql as $$ begin if new.action = 'mcp_server.revoke_connection' then raise exception 'audit refused by the test'; end if; return new; end $$`,
        )
        .execute(db);
      await sql
        .raw('create trigger refuse_revoke_audit before insert on audit_logs for each row execute function refuse_revoke_audit()')
        .execute(db);
    } else {
      await sql
        .raw(
          `create trigger refuse_revoke_audit before insert on audit_logs when new.action = 'mcp_server.revoke_connection' begin select raise(abort, 'audit refused by the test'); end`,
        )
        .execute(db);
    }
    const audited = () =>
      db
        .selectFrom('audit_logs')
        .select('id')
        .where('action', '=', 'mcp_server.revoke_connection')
        .execute()
        .then((r) => r.length);
    const auditedBefore = await audited();
    const grantsRevoked = up.revokedGrants;
    const refusedRevocations = up.refusedRevocations.length;
    try {
      const failed = await admin('DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`);
      expect(failed.status, JSON.stringify(failed.body)).toBe(500);
      expect(failed.body.error.type).toBeTypeOf('string');
    } finally {
      await sql.raw('drop trigger refuse_revoke_audit' + (pg ? ' on audit_logs' : '')).execute(db);
      if (pg) await sql.raw('drop function refuse_revoke_audit()').execute(db);
    }
    // Still connected, nothing audited, and no revocation reached the authorization server.
    expect(await db.selectFrom('mcp_connections').select('id').where('user_id', '=', bob.id).executeTakeFirst()).toBeDefined();
    expect(await audited()).toBe(auditedBefore);
    await new Promise((r) => setTimeout(r, 300));
    expect(up.revokedGrants).toBe(grantsRevoked);
    expect(up.refusedRevocations.length).toBe(refusedRevocations);
    const c = await client(bob.key);
    expect(await whoami(c)).toBe('bob-account');
    await c.close();
    // The same revoke, committed, revokes upstream.
    expect((await admin('DELETE', `/v1/mcp-servers/${serverId}/connections?user_id=${bob.id}`)).status).toBe(200);
    await expect.poll(() => up.revokedGrants, { timeout: 5000 }).toBe(grantsRevoked + 1);
  });

  it("a user deactivated or deleted (admin API or SCIM) has their connections' grants revoked upstream once the write commits", async () => {
    const db = gw.gateway.deps.store.db;
    const refreshTokenOf = async (userId: string): Promise<string> => {
      const row = await db.selectFrom('mcp_connections').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
      return gw.gateway.deps.secrets.decrypt(row.refresh_token_ciphertext!, `${row.id}:refresh`);
    };
    const refreshed = async (refreshToken: string): Promise<{ status: number; error?: string }> => {
      const res = await fetch(`${up.issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${up.clientId}:${up.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      });
      return { status: res.status, error: ((await res.json()) as { error?: string }).error };
    };
    const token = await admin('POST', '/v1/scim/tokens');
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const scimDeactivate = async (email: string) => {
      // SCIM adopts the existing user by email; `active: false` deactivates them.
      const res = await fetch(`${gw.url}/v1/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.body.token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: email,
          emails: [{ primary: true, value: email }],
          active: false,
        }),
      });
      return { status: res.status };
    };
    const cases: Array<[string, (u: { id: string }) => Promise<{ status: number }>]> = [
      ['carol-offboard@example.com', (u) => admin('PUT', `/v1/users/${u.id}`, { status: 'deactivated' })],
      ['dan-offboard@example.com', (u) => admin('DELETE', `/v1/users/${u.id}`)],
      ['erin-offboard@example.com', () => scimDeactivate('erin-offboard@example.com')],
    ];
    for (const [email, offboard] of cases) {
      const user = await mcpUser(gw, email);
      await connectAs(user, `${email}-account`);
      const refreshToken = await refreshTokenOf(user.id);
      const grantsRevoked = up.revokedGrants;
      const res = await offboard(user);
      expect(res.status, email).toBeLessThan(300);
      expect(await db.selectFrom('mcp_connections').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
      // After the commit the authorization server revokes the refresh token, which ends the grant.
      await expect.poll(() => up.revokedGrants, { timeout: 5000, message: email }).toBe(grantsRevoked + 1);
      expect(await refreshed(refreshToken)).toEqual({ status: 400, error: 'invalid_grant' });
    }
  });

  it('connect is refused for a service key and for a server without OAuth', async () => {
    const service = await admin('POST', `/v1/mcp-servers/${serverId}/connect`);
    expect(service.status).toBe(400);
    expect(service.body.error.message).toContain('service key');
    // An empty body sent as JSON is accepted like no body.
    const emptyJson = await callAs(gw, gw.adminKey, 'POST', `/v1/mcp-servers/${serverId}/connect`, undefined, {
      'content-type': 'application/json',
    });
    expect(emptyJson.body.error.message).toContain('service key');
    await admin('POST', '/v1/mcp-integrations', { name: 'plain', slug: 'plain-oauth-test', url: up.mcpUrl });
    await admin('POST', '/v1/mcp-servers', { name: 'plain', slug: 'plain-srv', mcp_integration_id: 'plain-oauth-test' });
    expect((await callAs(gw, alice.key, 'POST', '/v1/mcp-servers/plain-srv/connect')).status).toBe(409);
  });

  it('the connect, callback and connections routes are in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as Json;
    expect(doc.paths['/v1/mcp-servers/{id}/connect']?.post).toBeDefined();
    expect(doc.paths['/v1/mcp-servers/{id}/connections']?.get?.parameters?.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['current_page', 'page_size']),
    );
    expect(doc.paths['/v1/mcp-servers/{id}/connections']?.delete?.parameters?.map((p: Json) => p.name)).toContain('user_id');
    expect(doc.paths['/v1/mcp/oauth/callback']?.get).toBeDefined();
  });

  it('no token, refresh token or client secret appears in logs, answers, audit or request-log rows', async () => {
    const db = gw.gateway.deps.store.db;
    const stored = JSON.stringify([
      await db.selectFrom('audit_logs').selectAll().execute(),
      await db.selectFrom('request_logs').selectAll().execute(),
      await db.selectFrom('mcp_connections').selectAll().execute(),
      await db.selectFrom('mcp_integrations').selectAll().execute(),
    ]);
    const list = JSON.stringify((await admin('GET', `/v1/mcp-servers/${serverId}/connections`)).body);
    const logs = lines.join('');
    expect(up.accepted.length).toBeGreaterThan(3);
    for (const secret of [...new Set(up.accepted), up.clientSecret]) {
      expect(stored).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(list).not.toContain(secret);
    }
    expect(logs).toContain('MCP OAuth connection stored');
  });
});
