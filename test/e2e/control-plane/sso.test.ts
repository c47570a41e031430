import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startTestIssuer, type TestIssuer } from '../../fakes/oidc/issuer.js';
import { CookieJar, formOf, go } from '../../fakes/oidc/browser.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

type Json = Record<string, any>;

describe('SSO (OpenID Connect) with a real identity provider', () => {
  let gw: TestGateway;
  let idp: TestIssuer;
  let clock: FakeClock;
  const callback = () => `${gw.url}/v1/auth/sso/callback`;

  beforeAll(async () => {
    clock = new FakeClock(Date.now());
    gw = await startGateway({ clock, env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', OIDC_CUSTOM_SCOPES: 'offline_access, groups' } });
    idp = await startTestIssuer(`${gw.url}/v1/auth/sso/callback`);
    const put = await admin('PUT', '/v1/organisation/sso', ssoBody());
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
  });

  function ssoBody(extra: Json = {}): Json {
    return {
      issuer: idp.url,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      domains: [{ domain: 'example.com', allow_subdomains: true }, { domain: 'corp.example.org' }],
      ...extra,
    };
  }

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await gw.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async function json(res: Response): Promise<Json> {
    const text = await res.text();
    return text ? (JSON.parse(text) as Json) : {};
  }

  /** A new IdP account with this email (verified unless told). */
  function account(email: string, claims: Json = {}): string {
    const id = `acct-${randomId(8)}`;
    idp.accounts.set(id, { email, email_verified: true, name: 'Test User', ...claims });
    return id;
  }

  /**
   * Drives a sign-in as a browser: the gateway's login redirect, the IdP's login form (as `accountId`)
   * and consent form, up to the redirect back to the gateway's callback, which is returned (not
   * followed) with the gateway's cookie jar.
   */
  async function toCallback(email: string, accountId: string): Promise<{ callbackUrl: string; authorizeUrl: URL }> {
    const gwJar = new CookieJar();
    const start = await go(gwJar, `${gw.url}/v1/auth/sso/login?email=${encodeURIComponent(email)}`);
    expect(start.status, await start.clone().text()).toBe(302);
    const authorizeUrl = new URL(start.headers.get('location')!);
    const idpJar = new CookieJar();
    let url = authorizeUrl.href;
    for (let step = 0; step < 12; step++) {
      if (url.startsWith(callback())) return { callbackUrl: url, authorizeUrl };
      const res = await go(idpJar, url);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        continue;
      }
      const html = await res.text();
      expect(res.status, html).toBe(200);
      const form = formOf(html);
      if (form.fields.prompt === 'login') {
        form.fields.login = accountId;
        form.fields.password = 'any';
      }
      const posted = await go(idpJar, new URL(form.action, url).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form.fields).toString(),
      });
      expect(posted.status, await posted.clone().text()).toBeGreaterThanOrEqual(300);
      url = new URL(posted.headers.get('location')!, url).href;
    }
    throw new Error('the sign-in did not reach the gateway callback');
  }

  /** A whole sign-in: answers the callback's answer and the gateway cookie jar it filled. */
  async function signIn(
    email: string,
    accountId = account(email),
  ): Promise<{ res: Response; jar: CookieJar; authorizeUrl: URL; callbackUrl: string }> {
    const { callbackUrl, authorizeUrl } = await toCallback(email, accountId);
    const jar = new CookieJar();
    const res = await go(jar, callbackUrl);
    return { res, jar, authorizeUrl, callbackUrl };
  }

  async function sessionOf(jar: CookieJar): Promise<{ status: number; body: Json }> {
    const res = await go(jar, `${gw.url}/v1/auth/session`);
    return { status: res.status, body: await json(res) };
  }

  describe('settings', () => {
    it('answers the settings with the client secret masked, seals it at rest and audits without it', async () => {
      const got = await admin('GET', '/v1/organisation/sso');
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        object: 'sso_settings',
        issuer: idp.url,
        client_id: idp.clientId,
        token_endpoint_auth_method: 'client_secret_basic',
        default_role: 'member',
        auto_provision: true,
        scopes: [],
      });
      expect(got.body.domains).toEqual([
        { domain: 'example.com', allow_subdomains: true },
        { domain: 'corp.example.org', allow_subdomains: false },
      ]);
      expect(got.body.client_secret).not.toBe(idp.clientSecret);
      expect(got.body.client_secret).toMatch(/…/);
      const row = await gw.gateway.deps.store.db.selectFrom('sso_settings').selectAll().executeTakeFirstOrThrow();
      expect(row.client_secret).not.toContain(idp.clientSecret);
      const audit = await admin('GET', '/v1/audit-logs?action=sso_settings.update');
      expect(audit.status).toBe(200);
      expect(audit.body.data.length).toBeGreaterThan(0);
      expect(JSON.stringify(audit.body)).not.toContain(idp.clientSecret);
    });

    it('refuses allow_subdomains below a registrable root domain, naming the field', async () => {
      const r = await admin(
        'PUT',
        '/v1/organisation/sso',
        ssoBody({
          domains: [
            { domain: 'example.co.uk', allow_subdomains: true },
            { domain: 'eu.example.co.uk', allow_subdomains: true },
          ],
        }),
      );
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', param: 'domains[1].allow_subdomains' });
      const suffix = await admin('PUT', '/v1/organisation/sso', ssoBody({ domains: [{ domain: 'co.uk' }] }));
      expect(suffix.status).toBe(400);
      expect(suffix.body.error.param).toBe('domains[0].domain');
    });

    it('refuses unknown fields, a missing secret, a bad role and an issuer on an untrusted private or plain-http host', async () => {
      const unknown = await admin('PUT', '/v1/organisation/sso', ssoBody({ colour: 'red' }));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/colour/);
      const { client_secret: _s, ...noSecret } = ssoBody();
      expect((await admin('PUT', '/v1/organisation/sso', noSecret)).status).toBe(400);
      expect((await admin('PUT', '/v1/organisation/sso', ssoBody({ default_role: 'owner' }))).status).toBe(400);
      const priv = await admin('PUT', '/v1/organisation/sso', ssoBody({ issuer: 'https://10.1.2.3/' }));
      expect(priv.status).toBe(400);
      expect(priv.body.error.param).toBe('issuer');
      const notUrl = await admin('PUT', '/v1/organisation/sso', ssoBody({ issuer: 'not a url' }));
      expect(notUrl.status).toBe(400);
      expect(notUrl.body.error.param).toBe('issuer');
      // Nothing changed.
      expect((await admin('GET', '/v1/organisation/sso')).body.issuer).toBe(idp.url);
    });

    it("needs an organisation owner or admin: a member's key and a member's SSO session get 403", async () => {
      const email = `member-${randomId(6)}@example.com`;
      const user = await admin('POST', '/v1/users', { email, role: 'member', workspaces: [{ id: 'default', role: 'admin' }] });
      expect(user.status).toBe(201);
      const key = await admin('POST', '/v1/api-keys', { name: 'k', type: 'workspace-user', user_id: user.body.id });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await gw.fetch('/v1/organisation/sso', {
          method,
          headers: { 'x-gateway-api-key': key.body.key },
          ...(method === 'PUT' ? { body: JSON.stringify(ssoBody()) } : {}),
        });
        expect(res.status, method).toBe(403);
        expect((await json(res)).error.code).toBe('forbidden');
      }
      const { jar } = await signIn(email);
      const put = await go(jar, `${gw.url}/v1/organisation/sso`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-gateway-csrf': jar.cookies.get('gw_csrf')! },
        body: JSON.stringify(ssoBody()),
      });
      expect(put.status).toBe(403);
      expect((await admin('GET', '/v1/organisation/sso')).body.issuer).toBe(idp.url);
    });

    it('an admin signed in by SSO changes the settings with the CSRF header, not without it', async () => {
      const email = `owner-${randomId(6)}@example.com`;
      expect((await admin('POST', '/v1/users', { email, role: 'admin' })).status).toBe(201);
      const { jar } = await signIn(email);
      const body = JSON.stringify(ssoBody({ scopes: ['groups'] }));
      try {
        const noCsrf = await go(jar, `${gw.url}/v1/organisation/sso`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(noCsrf.status).toBe(403);
        const ok = await go(jar, `${gw.url}/v1/organisation/sso`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-gateway-csrf': jar.cookies.get('gw_csrf')! },
          body,
        });
        expect(ok.status, await ok.clone().text()).toBe(200);
        expect((await json(ok)).scopes).toEqual(['groups']);
        const me = (await sessionOf(jar)).body.user.id;
        const audit = await admin('GET', '/v1/audit-logs?action=sso_settings.update');
        expect(audit.body.data.some((e: Json) => e.actor.type === 'user' && e.actor.id === me)).toBe(true);
      } finally {
        expect((await admin('PUT', '/v1/organisation/sso', ssoBody())).status).toBe(200);
      }
    });

    it('refuses plain http for an issuer whose host is not trusted', async () => {
      const strict = await startGateway({ env: { TRUSTED_CUSTOM_HOSTS: 'localhost' } });
      try {
        const res = await strict.fetch('/v1/organisation/sso', { method: 'PUT', body: JSON.stringify(ssoBody()) });
        const body = await json(res);
        expect(res.status).toBe(400);
        expect(body.error.param).toBe('issuer');
        expect((await strict.fetch('/v1/organisation/sso')).status).toBe(404);
        // Without SSO the login route still exists: no email → 400, a domain → 403.
        expect((await fetch(`${strict.url}/v1/auth/sso/login`, { redirect: 'manual' })).status).toBe(400);
        expect((await fetch(`${strict.url}/v1/auth/sso/login?email=a@example.com`, { redirect: 'manual' })).status).toBe(403);
      } finally {
        await strict.close();
      }
    });
  });

  describe('sign-in', () => {
    it('without email is 400; an email whose domain is not configured is 403', async () => {
      const none = await fetch(`${gw.url}/v1/auth/sso/login`, { redirect: 'manual' });
      expect(none.status).toBe(400);
      expect((await json(none)).error.param).toBe('email');
      const other = await fetch(`${gw.url}/v1/auth/sso/login?email=someone@elsewhere.net`, { redirect: 'manual' });
      expect(other.status).toBe(403);
      expect((await json(other)).error.code).toBe('forbidden');
    });

    it('signs a new user in: PKCE S256, state, nonce and the scopes; provisions them with default_role; the session works', async () => {
      const email = `new-${randomId(6)}@example.com`;
      const { res, jar, authorizeUrl } = await signIn(email);
      const q = authorizeUrl.searchParams;
      expect(authorizeUrl.origin).toBe(idp.url);
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('state')).toBeTruthy();
      expect(q.get('nonce')).toBeTruthy();
      expect(q.get('scope')).toBe('openid email profile offline_access groups');
      expect(q.get('redirect_uri')).toBe(callback());
      expect(res.status, await res.clone().text()).toBe(302);
      expect(res.headers.get('location')).toBe('/console/');
      expect(jar.cookies.get('gw_session')).toBeTruthy();
      expect(jar.cookies.get('gw_csrf')).toBeTruthy();
      const s = await sessionOf(jar);
      expect(s.status, JSON.stringify(s.body)).toBe(200);
      expect(s.body.user).toMatchObject({ email, role: 'member', name: 'Test User' });
      expect(s.body.workspaces.map((w: Json) => w.role)).toEqual(['member']);
      expect(Date.parse(s.body.expires_at) - Date.parse(s.body.created_at)).toBe(86_400_000);
      const users = await admin('GET', `/v1/users?email=${encodeURIComponent(email)}`);
      expect(users.body.data).toHaveLength(1);
      expect(users.body.data[0]).toMatchObject({ role: 'member', status: 'active' });
      // A second sign-in finds the same user.
      const again = await signIn(email);
      expect(again.res.status).toBe(302);
      expect((await sessionOf(again.jar)).body.user.id).toBe(s.body.user.id);
    });

    it('a replayed callback fails, and so does an unknown state', async () => {
      const email = `replay-${randomId(6)}@example.com`;
      const first = await signIn(email);
      expect(first.res.status).toBe(302);
      const replay = await go(new CookieJar(), first.callbackUrl);
      expect(replay.status).toBe(400);
      expect((await json(replay)).error.param).toBe('state');
      const forged = new URL(first.callbackUrl);
      forged.searchParams.set('state', 'not-a-state-we-sent');
      const wrong = await go(new CookieJar(), forged.href);
      expect(wrong.status).toBe(400);
      expect((await json(wrong)).error.param).toBe('state');
      const noState = await go(new CookieJar(), callback());
      expect(noState.status).toBe(400);
    });

    it('a wrong nonce fails the ID token check (401) and starts no session', async () => {
      const email = `nonce-${randomId(6)}@example.com`;
      const { callbackUrl } = await toCallback(email, account(email));
      await gw.gateway.deps.store.db.updateTable('sso_logins').set({ nonce: 'tampered-nonce' }).execute();
      const jar = new CookieJar();
      const res = await go(jar, callbackUrl);
      const body = await json(res);
      expect(res.status).toBe(401);
      expect(body.error.message).toMatch(/nonce/);
      expect(jar.cookies.get('gw_session')).toBeUndefined();
    });

    it('an unverified email is refused (403)', async () => {
      const email = `unverified-${randomId(6)}@example.com`;
      const { res, jar } = await signIn(email, account(email, { email_verified: false }));
      expect(res.status).toBe(403);
      expect((await json(res)).error.message).toMatch(/verified/);
      expect(jar.cookies.get('gw_session')).toBeUndefined();
      expect((await admin('GET', `/v1/users?email=${encodeURIComponent(email)}`)).body.data).toHaveLength(0);
    });

    it('an IdP email outside the configured domains is refused at the callback (403)', async () => {
      const { res } = await signIn(`hint-${randomId(6)}@example.com`, account(`x-${randomId(6)}@elsewhere.net`));
      expect(res.status).toBe(403);
      expect((await json(res)).error.message).toMatch(/not in a domain/);
    });

    it('subdomains sign in under a root with allow_subdomains, and not under one without', async () => {
      const deep = `deep-${randomId(6)}@a.b.example.com`;
      const ok = await signIn(deep);
      expect(ok.res.status).toBe(302);
      expect((await sessionOf(ok.jar)).body.user.email).toBe(deep);
      const exact = await signIn(`exact-${randomId(6)}@corp.example.org`);
      expect(exact.res.status).toBe(302);
      const below = await fetch(`${gw.url}/v1/auth/sso/login?email=${encodeURIComponent(`x@eu.corp.example.org`)}`, { redirect: 'manual' });
      expect(below.status).toBe(403);
    });

    it('without auto_provision an unknown user is refused; a known one signs in', async () => {
      expect((await admin('PUT', '/v1/organisation/sso', ssoBody({ auto_provision: false, default_role: 'admin' }))).status).toBe(200);
      try {
        const email = `unknown-${randomId(6)}@example.com`;
        const refused = await signIn(email);
        expect(refused.res.status).toBe(403);
        expect((await json(refused.res)).error.message).toMatch(/auto_provision/);
        const known = `Known-${randomId(6)}@example.com`;
        expect((await admin('POST', '/v1/users', { email: known, role: 'member' })).status).toBe(201);
        const ok = await signIn(known.toLowerCase());
        expect(ok.res.status).toBe(302);
        expect((await sessionOf(ok.jar)).body.user).toMatchObject({ email: known, role: 'member' });
      } finally {
        await admin('PUT', '/v1/organisation/sso', ssoBody());
      }
    });

    it('provisions with default_role admin when set', async () => {
      expect((await admin('PUT', '/v1/organisation/sso', ssoBody({ default_role: 'admin' }))).status).toBe(200);
      try {
        const { res, jar } = await signIn(`adm-${randomId(6)}@example.com`);
        expect(res.status).toBe(302);
        expect((await sessionOf(jar)).body.user.role).toBe('admin');
      } finally {
        await admin('PUT', '/v1/organisation/sso', ssoBody());
      }
    });
  });

  describe('the session', () => {
    it('expires max_session_ttl after login', async () => {
      expect((await admin('PUT', '/v1/organisation/settings', { session_settings: { max_session_ttl: 900 } })).status).toBe(200);
      try {
        const { res, jar } = await signIn(`ttl-${randomId(6)}@example.com`);
        expect(res.status).toBe(302);
        const s = await sessionOf(jar);
        expect(Date.parse(s.body.expires_at) - Date.parse(s.body.created_at)).toBe(900_000);
        clock.advance(899_000);
        expect((await sessionOf(jar)).status).toBe(200);
        clock.advance(1_000);
        const expired = await sessionOf(jar);
        expect(expired.status).toBe(401);
        expect(expired.body.error.message).toMatch(/expired/);
      } finally {
        await admin('PUT', '/v1/organisation/settings', { session_settings: { max_session_ttl: 86400 } });
      }
    });

    it('logout ends it', async () => {
      const { jar } = await signIn(`out-${randomId(6)}@example.com`);
      const cookies = new CookieJar();
      for (const [k, v] of jar.cookies) cookies.cookies.set(k, v);
      const out = await go(jar, `${gw.url}/v1/auth/logout`, { method: 'POST', headers: { 'x-gateway-csrf': jar.cookies.get('gw_csrf')! } });
      expect(out.status).toBe(204);
      expect(jar.cookies.get('gw_session')).toBeUndefined();
      expect((await sessionOf(cookies)).status).toBe(401);
    });

    it("a deactivated user's session stops working and they cannot sign in again", async () => {
      const email = `gone-${randomId(6)}@example.com`;
      const id = account(email);
      const { jar } = await signIn(email, id);
      const s = await sessionOf(jar);
      expect(s.status).toBe(200);
      expect((await admin('PUT', `/v1/users/${s.body.user.id}`, { status: 'deactivated' })).status).toBe(200);
      expect((await sessionOf(jar)).status).toBe(401);
      const again = await signIn(email, id);
      expect(again.res.status).toBe(403);
      expect((await json(again.res)).error.message).toMatch(/deactivated/);
    });

    it('an issuer that cannot be reached answers 502 at sign-in, and the next sign-in after a fix works', async () => {
      const dead = createServer();
      await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
      const port = (dead.address() as AddressInfo).port;
      await new Promise<void>((resolve) => dead.close(() => resolve()));
      expect((await admin('PUT', '/v1/organisation/sso', ssoBody({ issuer: `http://127.0.0.1:${port}` }))).status).toBe(200);
      try {
        const res = await fetch(`${gw.url}/v1/auth/sso/login?email=a@example.com`, { redirect: 'manual' });
        expect(res.status).toBe(502);
        expect((await json(res)).error.message).toMatch(/discovery/);
      } finally {
        expect((await admin('PUT', '/v1/organisation/sso', ssoBody())).status).toBe(200);
      }
      expect((await signIn(`back-${randomId(6)}@example.com`)).res.status).toBe(302);
    });

    it('turning SSO off refuses new sign-ins (403) and GET answers 404', async () => {
      const strictOff = await admin('DELETE', '/v1/organisation/sso');
      expect(strictOff.status).toBe(200);
      try {
        expect((await admin('GET', '/v1/organisation/sso')).status).toBe(404);
        expect((await admin('DELETE', '/v1/organisation/sso')).status).toBe(404);
        expect((await fetch(`${gw.url}/v1/auth/sso/login?email=a@example.com`, { redirect: 'manual' })).status).toBe(403);
      } finally {
        expect((await admin('PUT', '/v1/organisation/sso', ssoBody())).status).toBe(200);
      }
    });
  });
});
