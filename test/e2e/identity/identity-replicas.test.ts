import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { startGateway, REDIS_URL, type TestGateway } from '../../helpers/gateway.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Two gateways sharing PostgreSQL and Redis: JWT settings saved through one verify tokens on the other,
 * and a user deactivated by SCIM through one has their key and console session refused on the other,
 * each within one second.
 */
describe('identity across replicas', () => {
  let one: TestGateway;
  let two: TestGateway;
  const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };

  /** Milliseconds until `probe` answers `status` (fails after one second). */
  async function msUntil(probe: () => Promise<number>, status: number): Promise<number> {
    const t0 = Date.now();
    let got = await probe();
    while (got !== status && Date.now() - t0 < 1000) got = await probe();
    expect(got).toBe(status);
    return Date.now() - t0;
  }

  beforeAll(async () => {
    one = await startGateway({ store: 'postgres', env });
    two = await startGateway({ store: 'postgres', pgSchema: one.pgSchema, env: { ...env, GATEWAY_ADMIN_KEY: one.adminKey } });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it('JWT settings saved on one replica verify tokens on the other within a second', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    const token = await new SignJWT({ workspace_id: 'default', scope: 'configs.read', sub: 'svc-a' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setExpirationTime('5m')
      .sign(pair.privateKey);
    const probe = async () => (await callAs(two, token, 'GET', '/v1/configs')).status;
    expect(await probe()).toBe(401);
    expect((await callAs(one, one.adminKey, 'PUT', '/v1/organisation/jwt', { jwks: { keys: [jwk] } })).status).toBe(200);
    expect(await msUntil(probe, 200)).toBeLessThan(1000);
    expect((await callAs(one, one.adminKey, 'DELETE', '/v1/organisation/jwt')).status).toBe(200);
    expect(await msUntil(probe, 401)).toBeLessThan(1000);
  });

  it('a SCIM deactivation on one replica stops the user key and session on the other within a second', async () => {
    const scimToken = (await callAs(one, one.adminKey, 'POST', '/v1/scim/tokens')).body.token;
    const res = await fetch(`${one.url}/v1/scim/v2/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: `rep.${randomId(5).toLowerCase()}@example.com`,
      }),
    });
    expect(res.status).toBe(201);
    const userId = ((await res.json()) as { id: string }).id;
    expect((await callAs(one, one.adminKey, 'POST', '/v1/workspaces/default/members', { user_id: userId, role: 'member' })).status).toBe(
      201,
    );
    const key = await callAs(one, one.adminKey, 'POST', '/v1/api-keys', {
      name: 'u',
      type: 'workspace-user',
      workspace_id: 'default',
      user_id: userId,
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const keyProbe = async () => (await callAs(two, key.body.key, 'GET', '/v1/configs')).status;
    expect(await msUntil(keyProbe, 200)).toBeLessThan(1000);
    const login = await fetch(`${two.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key.body.key }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((l) => l.split(';')[0])
      .join('; ');
    const sessionProbe = async () => (await fetch(`${two.url}/v1/auth/session`, { headers: { cookie } })).status;
    expect(await sessionProbe()).toBe(200);
    const off = await fetch(`${one.url}/v1/scim/v2/Users/${userId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      }),
    });
    expect(off.status).toBe(200);
    expect(await msUntil(keyProbe, 401)).toBeLessThan(1000);
    expect(await msUntil(sessionProbe, 401)).toBeLessThan(1000);
  });
});
