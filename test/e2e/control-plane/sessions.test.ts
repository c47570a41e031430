import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId, uuid } from '../../../src/foundation/lib/ids.js';
import { sha256Hex } from '../../../src/foundation/lib/hash.js';

type Json = Record<string, any>;

/** A browser-like cookie jar: keeps what `Set-Cookie` sets, drops what it clears, sends the rest. */
class CookieJar {
  readonly cookies = new Map<string, string>();
  /** The raw `Set-Cookie` lines of the last answer that set any. */
  lastSet: string[] = [];

  take(res: Response): void {
    const lines = res.headers.getSetCookie();
    if (!lines.length) return;
    this.lastSet = lines;
    for (const line of lines) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
});
afterAll(async () => {
  await fake?.close();
});

// The e2e suite runs on SQLite and again on PostgreSQL (vitest projects, TEST_STORE).
describe('console sessions', () => {
  let gw: TestGateway;
  let clock: FakeClock;
  let seq = 0;

  beforeAll(async () => {
    clock = new FakeClock(Date.now());
    gw = await startGateway({ clock });
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** A request as the admin key (or `key`). */
  async function admin(method: string, path: string, body?: unknown, key = gw.adminKey): Promise<{ status: number; body: Json }> {
    const res = await gw.fetch(path, {
      method,
      headers: { 'x-gateway-api-key': key },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** A request made by the browser holding `jar` (no gateway key); `csrf` sends the gw_csrf cookie as the header. */
  async function browser(
    jar: CookieJar,
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: boolean | string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: Json; res: Response }> {
    const headers: Record<string, string> = { ...opts.headers };
    if (jar.cookies.size) headers.cookie = jar.header();
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.csrf === true) headers['x-gateway-csrf'] = jar.cookies.get('gw_csrf') ?? '';
    else if (typeof opts.csrf === 'string') headers['x-gateway-csrf'] = opts.csrf;
    const res = await fetch(gw.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    jar.take(res);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, res };
  }

  /** A new user (organisation `role`, member of the default workspace with `wsRole`) and a user key of theirs. */
  async function userWithKey(role = 'member', wsRole = 'member'): Promise<{ id: string; email: string; key: string }> {
    const email = `s${++seq}-${randomId(6)}@example.com`;
    const user = await admin('POST', '/v1/users', { email, role, workspaces: [{ id: 'default', role: wsRole }] });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const key = await admin('POST', '/v1/api-keys', { name: 'console', type: 'workspace-user', user_id: user.body.id });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return { id: user.body.id, email, key: key.body.key };
  }

  async function login(key: string): Promise<{ jar: CookieJar; body: Json }> {
    const jar = new CookieJar();
    const res = await browser(jar, 'POST', '/v1/auth/login', { api_key: key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { jar, body: res.body };
  }

  function expectError(res: { status: number; body: Json }, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
  }

  it('login sets gw_session (HttpOnly, SameSite=Lax, Path=/) and gw_csrf (readable), answers the session; the table holds only the token hash', async () => {
    const u = await userWithKey();
    const { jar, body } = await login(u.key);
    const session = jar.lastSet.find((l) => l.startsWith('gw_session='))!;
    const csrf = jar.lastSet.find((l) => l.startsWith('gw_csrf='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toMatch(/Secure/);
    expect(csrf).not.toMatch(/HttpOnly/);
    expect(csrf).toMatch(/SameSite=Lax/);
    expect(body).toMatchObject({
      object: 'session',
      user: { id: u.id, email: u.email, role: 'member' },
      organisation: { id: gw.gateway.deps.runtime.current.defaultOrganisationId, slug: 'default' },
      workspaces: [{ id: gw.gateway.deps.runtime.current.defaultWorkspaceId, slug: 'default', role: 'member', status: 'active' }],
    });
    expect(Date.parse(body.expires_at) - clock.now()).toBe(86_400_000);
    const token = jar.cookies.get('gw_session')!;
    const rows = await gw.gateway.deps.store.db.selectFrom('sessions').selectAll().where('user_id', '=', u.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    const read = await browser(jar, 'GET', '/v1/auth/session');
    expect(read.status).toBe(200);
    expect(read.body).toEqual(body);
    const audit = await admin('GET', '/v1/audit-logs?action=session.create&page_size=100');
    expect(audit.body.data.some((e: Json) => e.resource_id === body.id && e.details.user_id === u.id)).toBe(true);
  });

  it('writes need x-gateway-csrf equal to the gw_csrf cookie (403 otherwise); reads do not', async () => {
    const u = await userWithKey();
    const { jar } = await login(u.key);
    expect((await browser(jar, 'GET', '/v1/configs')).status).toBe(200);
    expectError(await browser(jar, 'POST', '/v1/api-keys', { name: 'mine', type: 'workspace-user' }), 403, 'forbidden');
    expectError(
      await browser(jar, 'POST', '/v1/api-keys', { name: 'mine', type: 'workspace-user' }, { csrf: 'not-the-token' }),
      403,
      'forbidden',
    );
    // The header must be the session's own token, not merely equal to a planted cookie.
    const planted = new CookieJar();
    planted.cookies.set('gw_session', jar.cookies.get('gw_session')!);
    planted.cookies.set('gw_csrf', 'planted');
    expectError(
      await browser(planted, 'POST', '/v1/api-keys', { name: 'mine', type: 'workspace-user' }, { csrf: 'planted' }),
      403,
      'forbidden',
    );
    const made = await browser(jar, 'POST', '/v1/api-keys', { name: 'mine', type: 'workspace-user' }, { csrf: true });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.user_id).toBe(u.id);
    // The audit entry names the user as the actor.
    const audit = await admin('GET', `/v1/audit-logs?action=api_key.create&page_size=100`);
    expect(audit.body.data.find((e: Json) => e.resource_id === made.body.id).actor).toEqual({ type: 'user', id: u.id });
  });

  it("a session acts with its user's roles: a member reads but cannot write configs or read users; a manager writes configs; an org admin reads users", async () => {
    const member = await login((await userWithKey('member', 'member')).key);
    expect((await browser(member.jar, 'GET', '/v1/configs')).status).toBe(200);
    expectError(
      await browser(
        member.jar,
        'POST',
        '/v1/configs',
        { name: `c-${randomId(4)}`, config: { provider: 'openai', api_key: 'sk-config-secret' } },
        { csrf: true },
      ),
      403,
      'forbidden',
    );
    expectError(await browser(member.jar, 'GET', '/v1/users'), 403, 'forbidden');
    expectError(
      await browser(member.jar, 'PUT', '/v1/organisation/settings', { membersViewAllData: false }, { csrf: true }),
      403,
      'forbidden',
    );
    const manager = await login((await userWithKey('member', 'manager')).key);
    expect(
      (
        await browser(
          manager.jar,
          'POST',
          '/v1/configs',
          { name: `c-${randomId(4)}`, config: { provider: 'openai', api_key: 'sk-config-secret' } },
          { csrf: true },
        )
      ).status,
    ).toBe(201);
    const orgAdmin = await login((await userWithKey('admin', 'member')).key);
    expect(orgAdmin.body.workspaces.every((w: Json) => w.role === 'admin')).toBe(true);
    expect((await browser(orgAdmin.jar, 'GET', '/v1/users')).status).toBe(200);
  });

  it('x-gateway-workspace naming a workspace the member is not in, or an unknown one, is 404', async () => {
    const member = await login((await userWithKey()).key);
    const ws = await admin('POST', '/v1/workspaces', { name: 'Elsewhere', slug: `else-${randomId(5).toLowerCase()}` });
    expect(ws.status).toBe(201);
    expectError(
      await browser(member.jar, 'GET', '/v1/configs', undefined, { headers: { 'x-gateway-workspace': ws.body.id } }),
      404,
      'not_found',
    );
    expectError(
      await browser(member.jar, 'GET', '/v1/configs', undefined, { headers: { 'x-gateway-workspace': uuid() } }),
      404,
      'not_found',
    );
    expect((await browser(member.jar, 'GET', '/v1/configs', undefined, { headers: { 'x-gateway-workspace': 'default' } })).status).toBe(
      200,
    );
    // The query's workspace_id chooses it too.
    expectError(await browser(member.jar, 'GET', `/v1/configs?workspace_id=${ws.body.id}`), 404, 'not_found');
    // Once a member there, the user acts in it with their role there.
    expect((await admin('POST', `/v1/workspaces/${ws.body.id}/members`, { user_id: member.body.user.id, role: 'manager' })).status).toBe(
      201,
    );
    const there = await browser(
      member.jar,
      'POST',
      '/v1/configs',
      { name: `c-${randomId(4)}`, config: { provider: 'openai', api_key: 'sk-config-secret' } },
      { csrf: true, headers: { 'x-gateway-workspace': ws.body.id } },
    );
    expect(there.status, JSON.stringify(there.body)).toBe(201);
    expect(there.body.workspace_id).toBe(ws.body.id);
    expectError(
      await browser(
        member.jar,
        'POST',
        '/v1/configs',
        { name: `c-${randomId(4)}`, config: { provider: 'openai', api_key: 'sk-config-secret' } },
        { csrf: true },
      ),
      403,
      'forbidden',
    );
    // An archived workspace refuses the session there.
    expect((await admin('DELETE', `/v1/workspaces/${ws.body.id}`)).status).toBe(200);
    expectError(
      await browser(member.jar, 'GET', '/v1/configs', undefined, { headers: { 'x-gateway-workspace': ws.body.id } }),
      403,
      'forbidden',
    );
  });

  it('sessions may use the data plane (completions.write), with the CSRF header', async () => {
    const { jar } = await login((await userWithKey()).key);
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    const headers = { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) };
    expectError(await browser(jar, 'POST', '/v1/chat/completions', body, { headers }), 403, 'forbidden');
    const ok = await browser(jar, 'POST', '/v1/chat/completions', body, { headers, csrf: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('a session older than max_session_ttl since login is refused with 401 saying it expired', async () => {
    const u = await userWithKey();
    const { jar } = await login(u.key);
    expect((await admin('PUT', '/v1/organisation/settings', { session_settings: { max_session_ttl: 900 } })).status).toBe(200);
    try {
      const read = await browser(jar, 'GET', '/v1/auth/session');
      expect(read.status).toBe(200);
      expect(Date.parse(read.body.expires_at) - Date.parse(read.body.created_at)).toBe(900_000);
      clock.advance(899_000);
      expect((await browser(jar, 'GET', '/v1/configs')).status).toBe(200);
      clock.advance(1_000);
      const expired = await browser(jar, 'GET', '/v1/configs');
      expectError(expired, 401, 'invalid_api_key');
      expect(expired.body.error.message).toMatch(/expired/);
      // A new login works again, for 900 s.
      const again = await login(u.key);
      expect(Date.parse(again.body.expires_at) - clock.now()).toBe(900_000);
    } finally {
      await admin('PUT', '/v1/organisation/settings', { session_settings: { max_session_ttl: 86400 } });
    }
  });

  it('logout ends the session and clears both cookies; the old cookie is refused afterwards', async () => {
    const { jar } = await login((await userWithKey()).key);
    const token = jar.cookies.get('gw_session')!;
    const csrf = jar.cookies.get('gw_csrf')!;
    expectError(await browser(jar, 'POST', '/v1/auth/logout'), 403, 'forbidden');
    const out = await browser(jar, 'POST', '/v1/auth/logout', undefined, { csrf: true });
    expect(out.status).toBe(204);
    expect(jar.lastSet.every((l) => /Max-Age=0/.test(l))).toBe(true);
    expect(jar.cookies.size).toBe(0);
    const stale = new CookieJar();
    stale.cookies.set('gw_session', token);
    stale.cookies.set('gw_csrf', csrf);
    expectError(await browser(stale, 'GET', '/v1/auth/session'), 401, 'invalid_api_key');
    expectError(await browser(stale, 'POST', '/v1/auth/logout', undefined, { csrf: true }), 401, 'invalid_api_key');
  });

  it('deleting or deactivating a user ends their sessions', async () => {
    const a = await userWithKey();
    const sa = await login(a.key);
    expect((await admin('DELETE', `/v1/users/${a.id}`)).status).toBe(200);
    expectError(await browser(sa.jar, 'GET', '/v1/auth/session'), 401, 'invalid_api_key');
    const b = await userWithKey();
    const sb = await login(b.key);
    expect((await admin('PUT', `/v1/users/${b.id}`, { status: 'deactivated' })).status).toBe(200);
    expectError(await browser(sb.jar, 'GET', '/v1/auth/session'), 401, 'invalid_api_key');
    const revoked = await gw.gateway.deps.store.db
      .selectFrom('sessions')
      .select('revoked_at')
      .where('user_id', 'in', [a.id, b.id])
      .execute();
    expect(revoked.length).toBe(2);
    expect(revoked.every((r) => r.revoked_at !== null)).toBe(true);
  });

  it('bad input: unknown field / missing api_key → 400; a service key, an unknown key → 401; no session → 401', async () => {
    const u = await userWithKey();
    const jar = new CookieJar();
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: u.key, remember: true }), 400, 'invalid_request');
    expectError(await browser(jar, 'POST', '/v1/auth/login', {}), 400, 'invalid_request');
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: 42 }), 400, 'invalid_request');
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: gw.adminKey }), 401, 'invalid_api_key');
    const svc = await admin('POST', '/v1/api-keys', { name: 'svc', type: 'workspace-service' });
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: svc.body.key }), 401, 'invalid_api_key');
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: 'nope' }), 401, 'invalid_api_key');
    expect(jar.cookies.size).toBe(0);
    expectError(await admin('GET', '/v1/auth/session'), 401, 'invalid_api_key');
    expectError(await browser(jar, 'GET', '/v1/auth/session'), 401, 'invalid_api_key');
    const forged = new CookieJar();
    forged.cookies.set('gw_session', randomId(48));
    expectError(await browser(forged, 'GET', '/v1/configs'), 401, 'invalid_api_key');
    // A deactivated user's key cannot start a session.
    expect((await admin('PUT', `/v1/users/${u.id}`, { status: 'deactivated' })).status).toBe(200);
    expectError(await browser(jar, 'POST', '/v1/auth/login', { api_key: u.key }), 401, 'invalid_api_key');
  });

  it('/openapi.json documents the session routes with typed answers', async () => {
    const doc = (await (await fetch(gw.url + '/openapi.json')).json()) as Json;
    const login = doc.paths['/v1/auth/login'].post;
    expect(login.responses['200'].content['application/json'].schema.properties.expires_at).toBeDefined();
    expect(login.security).toEqual([]);
    expect(doc.paths['/v1/auth/session'].get.responses['200'].content['application/json'].schema.properties.workspaces).toBeDefined();
    expect(doc.paths['/v1/auth/logout'].post.responses['204']).toBeDefined();
    expect(doc.components.securitySchemes.gatewaySession).toEqual({ type: 'apiKey', in: 'cookie', name: 'gw_session' });
  });
});
