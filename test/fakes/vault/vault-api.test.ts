import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVault, type FakeVault } from './server.js';

/** The fake against Vault's documented HTTP API (Vault ships no official Node.js client). */
describe('fake HashiCorp Vault over its HTTP API', () => {
  let fake: FakeVault;
  beforeAll(async () => {
    fake = await startFakeVault({
      tokens: ['hvs.root'],
      approle: { roleId: 'role-1', secretId: 'secret-1' },
      namespace: 'team-a',
      secrets: { 'secret/llm/openai': { api_key: 'sk-from-vault' } },
    });
  });
  afterAll(async () => fake?.close());

  const get = (path: string, headers: Record<string, string>) => fetch(`${fake.origin}${path}`, { headers });

  it('reads a KV v2 secret with a token, and with the token of an AppRole login', async () => {
    const res = await get('/v1/secret/data/llm/openai', { 'x-vault-token': 'hvs.root', 'x-vault-namespace': 'team-a' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.data).toEqual({ api_key: 'sk-from-vault' });
    const login = await fetch(`${fake.origin}/v1/auth/approle/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vault-namespace': 'team-a' },
      body: JSON.stringify({ role_id: 'role-1', secret_id: 'secret-1' }),
    });
    const token = ((await login.json()) as any).auth.client_token as string;
    expect(token).toMatch(/^hvs\./);
    expect((await get('/v1/secret/data/llm/openai', { 'x-vault-token': token, 'x-vault-namespace': 'team-a' })).status).toBe(200);
  });

  it('refuses a bad token, a bad AppRole login, a missing namespace, and answers 404 for unknown paths', async () => {
    const denied = await get('/v1/secret/data/llm/openai', { 'x-vault-token': 'hvs.wrong', 'x-vault-namespace': 'team-a' });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({ errors: ['permission denied'] });
    const badLogin = await fetch(`${fake.origin}/v1/auth/approle/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vault-namespace': 'team-a' },
      body: JSON.stringify({ role_id: 'role-1', secret_id: 'nope' }),
    });
    expect(badLogin.status).toBe(400);
    expect((await get('/v1/secret/data/llm/openai', { 'x-vault-token': 'hvs.root' })).status).toBe(403);
    expect((await get('/v1/secret/data/llm/none', { 'x-vault-token': 'hvs.root', 'x-vault-namespace': 'team-a' })).status).toBe(404);
  });
});
