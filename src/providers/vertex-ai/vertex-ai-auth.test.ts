import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync, verify } from 'node:crypto';
import { FakeClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { CallContext } from '../provider.js';
import {
  parseServiceAccount,
  signServiceAccountAssertion,
  vertexAuthHeaders,
  VertexTokenCache,
  type ServiceAccount,
} from './vertex-ai-auth.js';
import { startFakeVertex, type FakeVertex } from '../../../test/fakes/vertex-ai/server.js';

const EMAIL = 'gw@proj.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const http = new HttpClient();
/** The fake's clock; tests that move time move this one too. */
const fakeNow = new FakeClock(Date.now());
let fake: FakeVertex;
let sa: ServiceAccount;

beforeAll(async () => {
  fake = await startFakeVertex({ serviceAccounts: [{ client_email: EMAIL, publicKey }], tokenLifetimeS: 3600, now: () => fakeNow.now() });
  sa = parseServiceAccount({
    type: 'service_account',
    client_email: EMAIL,
    private_key: PEM,
    private_key_id: 'kid1',
    token_uri: fake.tokenUri,
    project_id: 'proj',
  })!;
});
afterAll(async () => {
  await fake.close();
  await http.close();
});
beforeEach(() => fake.reset());

describe('service account parsing and signing', () => {
  it('reads objects and JSON text, defaults token_uri, refuses incomplete keys', () => {
    expect(parseServiceAccount(undefined)).toBeUndefined();
    expect(parseServiceAccount(JSON.stringify({ client_email: 'a', private_key: 'b' }))).toEqual({
      client_email: 'a',
      private_key: 'b',
      token_uri: 'https://oauth2.googleapis.com/token',
      private_key_id: undefined,
      project_id: undefined,
    });
    expect(() => parseServiceAccount({ client_email: 'a' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'cloud2_service_account_json' }),
    );
  });

  it('signs an RS256 JWT with the documented claims', () => {
    const jwt = signServiceAccountAssertion(sa, 1_000);
    const [h, p, s] = jwt.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid1' });
    expect(JSON.parse(Buffer.from(p, 'base64url').toString())).toEqual({
      iss: EMAIL,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: fake.tokenUri,
      iat: 1_000,
      exp: 4_600,
    });
    expect(verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'))).toBe(true);
    expect(() => signServiceAccountAssertion({ ...sa, private_key: 'not a key' }, 1)).toThrow(
      expect.objectContaining({ param: 'cloud2_service_account_json.private_key' }),
    );
  });
});

describe('VertexTokenCache against the fake token endpoint', () => {
  it('shares ONE exchange among 20 concurrent callers', async () => {
    const cache = new VertexTokenCache();
    const clock = new FakeClock(Date.now());
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cache.getToken(sa, http, clock, 'vertex-ai')));
    expect(fake.tokenRequests).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    expect(fake.tokens.accepts(tokens[0])).toBe(true);
  });

  it('reuses the token until 5 minutes before expiry, then refreshes', async () => {
    const cache = new VertexTokenCache();
    const clock = fakeNow;
    const first = await cache.getToken(sa, http, clock, 'vertex-ai');
    clock.advance(54 * 60_000);
    expect(await cache.getToken(sa, http, clock, 'vertex-ai')).toBe(first);
    expect(fake.tokenRequests).toBe(1);
    clock.advance(2 * 60_000);
    const second = await cache.getToken(sa, http, clock, 'vertex-ai');
    expect(second).not.toBe(first);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.tokens.accepts(second)).toBe(true);
    clock.set(Date.now());
  });

  it('keeps one token per service account', async () => {
    const cache = new VertexTokenCache();
    const clock = new FakeClock(Date.now());
    await cache.getToken(sa, http, clock, 'vertex-ai');
    const stranger = { ...sa, client_email: 'stranger@proj.iam.gserviceaccount.com' };
    await expect(cache.getToken(stranger, http, clock, 'vertex-ai')).rejects.toMatchObject({ status: 401, publicCode: 'invalid_grant' });
    expect(fake.tokenRequests).toBe(2);
  });

  it('maps a rejected assertion to 401 and does not cache the failure', async () => {
    const cache = new VertexTokenCache();
    const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const bad = { ...sa, private_key: wrongKey };
    const clock = new FakeClock(Date.now());
    const all = await Promise.allSettled(Array.from({ length: 5 }, () => cache.getToken(bad, http, clock, 'vertex-ai')));
    expect(all.every((r) => r.status === 'rejected' && (r.reason as { status: number }).status === 401)).toBe(true);
    expect((all[0] as PromiseRejectedResult).reason.message).toContain('Invalid JWT Signature.');
    expect(fake.tokenRequests).toBe(1);
    await expect(cache.getToken(bad, http, clock, 'vertex-ai')).rejects.toMatchObject({ status: 401 });
    expect(fake.tokenRequests).toBe(2);
  });

  it('an expired assertion (clock far behind) is refused by the fake', async () => {
    const cache = new VertexTokenCache();
    await expect(cache.getToken(sa, http, new FakeClock(Date.now() - 3 * 3600_000), 'vertex-ai')).rejects.toMatchObject({
      status: 401,
      message: expect.stringContaining('short-lived'),
    });
  });
});

describe('vertexAuthHeaders', () => {
  const ctx = (config: Record<string, unknown>, apiKey?: string, customHost: string | null = fake.origin): CallContext => ({
    target: { provider: 'vertex-ai', apiKey, config, customHost: customHost ?? undefined, forwardHeaders: {} },
    stream: false,
    signal: new AbortController().signal,
    http,
    clock: new FakeClock(Date.now()),
  });

  it('uses the service account first, then a plain key as Bearer, else refuses', async () => {
    const cache = new VertexTokenCache();
    const h = await vertexAuthHeaders(
      ctx({ cloud2_service_account_json: { client_email: EMAIL, private_key: PEM, token_uri: fake.tokenUri } }, 'ignored'),
      cache,
      'vertex-ai',
    );
    expect(fake.tokens.accepts(h.authorization!.slice(7))).toBe(true);
    expect(await vertexAuthHeaders(ctx({}, 'ya29.given'), cache, 'vertex-ai')).toEqual({ authorization: 'Bearer ya29.given' });
    await expect(vertexAuthHeaders(ctx({}), cache, 'vertex-ai')).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'cloud2_service_account_json',
    });
  });

  it('refuses a token_uri that is neither Google nor the custom host', async () => {
    const cache = new VertexTokenCache();
    const key = (token_uri: string) => ({ cloud2_service_account_json: { client_email: EMAIL, private_key: PEM, token_uri } });
    await expect(vertexAuthHeaders(ctx(key(fake.tokenUri), undefined, null), cache, 'vertex-ai')).rejects.toMatchObject({
      param: 'cloud2_service_account_json.token_uri',
    });
    await expect(
      vertexAuthHeaders(ctx(key('http://169.254.169.254/token'), undefined, fake.origin), cache, 'vertex-ai'),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(
      vertexAuthHeaders(ctx(key('http://oauth2.googleapis.com/token'), undefined, null), cache, 'vertex-ai'),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(fake.tokenRequests).toBe(0);
  });
});
