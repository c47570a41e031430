import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { callAs, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * JWT authentication (control-plane.md §5) over HTTP with real tokens signed by jose and a real JWKS
 * server on 127.0.0.1: settings and their bad input, data-plane and admin requests made with a JWT,
 * attribution in the request log and in rate limits, every failure reason, `alg: none`, and the
 * JWKS refetch on an unknown kid at most once per 30 s (the gateway's clock is a fake one).
 */
type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

describe('JWT authentication', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  let clock: FakeClock;
  let jwksServer: Server;
  let jwksUrl: string;
  let jwksHits = 0;
  const served: JWK[] = [];
  let rsa: KeyPair;
  let ec: KeyPair;
  let stranger: KeyPair;
  let team: { id: string; slug: string };
  const ISSUER = 'https://idp.example.com';
  const AUDIENCE = 'ai-gateway';
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
  const now = () => Math.floor(clock.now() / 1000);

  async function publicJwk(pair: KeyPair, kid: string, alg: string): Promise<JWK> {
    return { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
  }

  /** A token signed with `pair` (RS256 by default) carrying the usual claims, overridden by `claims`. */
  function token(
    claims: Record<string, unknown> = {},
    opts: { pair?: KeyPair; kid?: string; alg?: string; omit?: string[] } = {},
  ): Promise<string> {
    const body: Record<string, unknown> = {
      workspace_id: team.slug,
      scope: 'completions.write logs.read',
      sub: 'alice',
      email: 'alice@example.com',
      iss: ISSUER,
      aud: AUDIENCE,
      exp: now() + 300,
      iat: now(),
      ...claims,
    };
    for (const k of opts.omit ?? []) delete body[k];
    return new SignJWT(body).setProtectedHeader({ alg: opts.alg ?? 'RS256', kid: opts.kid ?? 'rsa-1' }).sign((opts.pair ?? rsa).privateKey);
  }

  function expectRefused(r: JsonAnswer, reason: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(401);
    expect(r.body.error.code).toBe('invalid_api_key');
    expect(r.body.error.message).toContain(reason);
  }

  const chat = (key: string, headers: Record<string, string> = {}) =>
    callAs(
      gw,
      key,
      'POST',
      '/v1/chat/completions',
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.url, authorization: 'Bearer sk-fake', ...headers },
    );

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    clock = new FakeClock(Date.now());
    gw = await startGateway({ clock });
    rsa = await generateKeyPair('RS256', { extractable: true });
    ec = await generateKeyPair('ES256', { extractable: true });
    stranger = await generateKeyPair('RS256', { extractable: true });
    served.push(await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(ec, 'ec-1', 'ES256'));
    jwksServer = createServer((req, res) => {
      jwksHits++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    const ws = await admin('POST', '/v1/workspaces', { name: 'JWT team', slug: `jwt-${randomId(6).toLowerCase()}` });
    expect(ws.status, JSON.stringify(ws.body)).toBe(201);
    team = { id: ws.body.id, slug: ws.body.slug };
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  it('before settings exist a JWT is refused saying JWT authentication is not configured; GET is 404', async () => {
    expectRefused(await chat(await token()), 'not configured');
    expect((await admin('GET', '/v1/organisation/jwt')).status).toBe(404);
  });

  it('refuses bad settings with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ issuer: ISSUER }, 'jwks_url'],
      [{ jwks_url: jwksUrl, jwks: { keys: served } }, 'jwks'],
      [{ jwks_url: 'http://10.20.30.40/jwks.json' }, 'jwks_url'],
      [{ jwks_url: 'not a url' }, 'jwks_url'],
      [{ jwks_url: jwksUrl, algorithms: ['none'] }, 'algorithms'],
      [{ jwks_url: jwksUrl, algorithms: ['HS256'] }, 'algorithms'],
      [{ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'jwks.keys[0]'],
      [{ jwks: { keys: [{ ...served[0], d: 'private' }] } }, 'jwks.keys[0]'],
      [{ jwks_url: jwksUrl, colour: 'blue' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const r = await admin('PUT', '/v1/organisation/jwt', body);
      expect(r.status, `${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).toBe(400);
      expect(`${r.body.error.param} ${r.body.error.message}`).toContain(param);
    }
    expect((await admin('GET', '/v1/organisation/jwt')).status).toBe(404);
  });

  it('a workspace key may not read or change the JWT settings', async () => {
    const key = await admin('POST', '/v1/api-keys', { name: 'ws admin', type: 'workspace-service', workspace_id: team.id, scopes: ['*'] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect((await callAs(gw, key.body.key, 'PUT', '/v1/organisation/jwt', { jwks_url: jwksUrl })).status).toBe(403);
    expect((await callAs(gw, key.body.key, 'GET', '/v1/organisation/jwt')).status).toBe(403);
  });

  it('PUT saves the settings (default algorithms), GET shows them, the audit log records it', async () => {
    const r = await admin('PUT', '/v1/organisation/jwt', { jwks_url: jwksUrl, issuer: ISSUER, audience: AUDIENCE });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      object: 'jwt_settings',
      jwks_url: jwksUrl,
      jwks: null,
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256', 'ES256', 'EdDSA'],
    });
    expect((await admin('GET', '/v1/organisation/jwt')).body).toEqual(r.body);
    const audit = await admin('GET', '/v1/audit-logs?action=jwt_settings.update');
    expect(audit.body.data[0]).toMatchObject({ action: 'jwt_settings.update', resource_type: 'jwt_settings' });
  });

  it('a JWT authenticates a data-plane request (also as Authorization: Bearer); the log attributes it to its subject with its metadata', async () => {
    const trace = `jwt-${randomId(8)}`;
    const t = await token({ metadata: { team: 'search', priority: 2 } });
    const r = await chat(t, { 'x-gateway-trace-id': trace, 'x-gateway-metadata': JSON.stringify({ run: 'one' }) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: t,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) },
    });
    const viaSdk = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(viaSdk.choices[0]!.message.content).toBeTypeOf('string');
    const logs = await callAs(gw, t, 'GET', `/v1/logs?trace_id=${trace}`);
    expect(logs.status, JSON.stringify(logs.body)).toBe(200);
    expect(logs.body.data).toHaveLength(1);
    expect(logs.body.data[0]).toMatchObject({ workspace_id: team.id, api_key_id: 'alice', user_id: 'alice' });
    expect(logs.body.data[0].metadata).toMatchObject({ run: 'one', team: 'search', priority: '2' });
  });

  it('acts with the token scopes in the token workspace: a missing scope is 403, another workspace 404', async () => {
    const chatOnly = await token({ scope: 'completions.write' });
    const r = await callAs(gw, chatOnly, 'GET', '/v1/logs');
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain('logs.read');
    const withArray = await token({ scope: undefined, scopes: ['configs.read'] });
    expect((await callAs(gw, withArray, 'GET', '/v1/configs')).status).toBe(200);
    const other = await admin('POST', '/v1/configs', {
      name: 'other',
      workspace_id: 'default',
      config: { provider: 'openai', api_key: 'sk-other' },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect((await callAs(gw, withArray, 'GET', `/v1/configs/${other.body.id}`)).status).toBe(404);
    expect((await callAs(gw, withArray, 'GET', '/v1/configs?workspace_id=default')).status).toBe(404);
    const byId = await token({ workspace_id: team.id, scope: 'configs.read' });
    expect((await callAs(gw, byId, 'GET', '/v1/configs')).status).toBe(200);
  });

  it('rate limits group by api_key count per subject', async () => {
    const caseId = randomId(8);
    const p = await admin('POST', '/v1/policies/rate-limits', {
      type: 'requests',
      unit: 'rpm',
      value: 1,
      workspace_id: team.id,
      conditions: [{ key: 'metadata.case', value: caseId }],
      group_by: [{ key: 'api_key' }],
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const meta = { 'x-gateway-metadata': JSON.stringify({ case: caseId }) };
    expect((await chat(await token({ sub: 'bob' }), meta)).status).toBe(200);
    expect((await chat(await token({ sub: 'bob' }), meta)).status).toBe(429);
    expect((await chat(await token({ sub: 'carol' }), meta)).status).toBe(200);
  });

  it('names every failure reason', async () => {
    expectRefused(await chat(await token({ exp: now() - 10 })), 'expired');
    expectRefused(await chat(await token({ nbf: now() + 600 })), 'not yet valid');
    expectRefused(await chat(await token({}, { pair: stranger, kid: 'rsa-unknown' })), 'unknown kid');
    expectRefused(await chat(await token({}, { pair: await generateKeyPair('RS384'), alg: 'RS384' })), 'algorithm not allowed (RS384)');
    expectRefused(await chat(await token({}, { pair: stranger, kid: 'rsa-1' })), 'bad signature');
    expectRefused(await chat(await token({ iss: 'https://evil.example.com' })), 'issuer mismatch');
    expectRefused(await chat(await token({ aud: 'someone-else' })), 'audience mismatch');
    expectRefused(await chat(await token({}, { omit: ['exp'] })), 'missing claim exp');
    expectRefused(await chat(await token({}, { omit: ['workspace_id'] })), 'missing claim workspace_id');
    expectRefused(await chat(await token({ workspace_id: 'no-such-workspace' })), "unknown workspace 'no-such-workspace'");
    const good = await token();
    const [h, p, s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: '*' })).toString('base64url')}.${s}`;
    expectRefused(await chat(tampered), 'bad signature');
    // An ES256 token verifies (ES256 is allowed by default) …
    expect((await chat(await token({}, { pair: ec, kid: 'ec-1', alg: 'ES256' }))).status).toBe(200);
  });

  it('refuses alg none (unsigned tokens), whatever the claims', async () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ workspace_id: team.slug, scope: '*', sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.`;
    expectRefused(await chat(unsigned), 'algorithm not allowed (none)');
    expectRefused(await callAs(gw, unsigned, 'GET', '/v1/logs'), 'algorithm not allowed');
  });

  it('with algorithms [RS256] an ES256 token is refused as algorithm not allowed', async () => {
    expect(
      (await admin('PUT', '/v1/organisation/jwt', { jwks_url: jwksUrl, issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'] })).status,
    ).toBe(200);
    expectRefused(await chat(await token({}, { pair: ec, kid: 'ec-1', alg: 'ES256' })), 'algorithm not allowed');
    expect((await chat(await token())).status).toBe(200);
  });

  it('an unknown kid refetches the JWKS at most once per 30 s', async () => {
    const before = jwksHits;
    const rotated = await generateKeyPair('RS256', { extractable: true });
    served.push(await publicJwk(rotated, 'rsa-2', 'RS256'));
    // The JWKS was fetched moments ago (earlier tests): a new kid is refused without a fetch.
    const fresh = await token({}, { pair: rotated, kid: 'rsa-2' });
    expectRefused(await chat(fresh), 'unknown kid');
    expectRefused(await chat(fresh), 'unknown kid');
    expect(jwksHits).toBe(before);
    clock.advance(31_000);
    const renewed = await token({}, { pair: rotated, kid: 'rsa-2' });
    expect((await chat(renewed)).status).toBe(200);
    expect(jwksHits).toBe(before + 1);
    // Right after that fetch, another unknown kid does not fetch again.
    expectRefused(await chat(await token({}, { pair: stranger, kid: 'rsa-3' })), 'unknown kid');
    expect(jwksHits).toBe(before + 1);
  });

  it('an inline JWKS verifies without any fetch; DELETE turns JWT authentication off', async () => {
    const hits = jwksHits;
    const r = await admin('PUT', '/v1/organisation/jwt', { jwks: { keys: [served[0]] }, audience: AUDIENCE });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ jwks_url: null, issuer: null, jwks: { keys: [expect.objectContaining({ kid: 'rsa-1' })] } });
    expect((await chat(await token({ iss: 'https://any-issuer.example.com' }))).status).toBe(200);
    expectRefused(await chat(await token({}, { pair: ec, kid: 'ec-1', alg: 'ES256' })), 'unknown kid');
    expect(jwksHits).toBe(hits);
    expect((await admin('DELETE', '/v1/organisation/jwt')).body).toEqual({ object: 'jwt_settings', deleted: true });
    expectRefused(await chat(await token()), 'not configured');
    expect((await admin('DELETE', '/v1/organisation/jwt')).status).toBe(404);
  });
});
