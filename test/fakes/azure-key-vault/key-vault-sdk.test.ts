import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'node:https';
import { ClientSecretCredential } from '@azure/identity';
import { SecretClient } from '@azure/keyvault-secrets';
import { fakeVaultLookup, selfSignedCertificate, startFakeKeyVault, type FakeKeyVault, type TestCertificate } from './server.js';

/** The fake against the official clients: what works with it works with Azure, and bad credentials fail as there. */
describe('fake Azure Key Vault with @azure/keyvault-secrets and @azure/identity', () => {
  let tls: TestCertificate;
  let fake: FakeKeyVault;
  const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  beforeAll(async () => {
    tls = selfSignedCertificate();
    fake = await startFakeKeyVault({
      tenantId: TENANT,
      clientId: 'app-1',
      clientSecret: 'client-secret-value',
      secrets: { 'openai-key': 'sk-from-azure' },
      tls,
    });
  });
  afterAll(async () => fake?.close());

  const client = (secret: string, ca: string | null = tls.cert) => {
    const agent = new Agent({ lookup: fakeVaultLookup, ...(ca ? { ca } : {}) });
    const credential = new ClientSecretCredential(TENANT, 'app-1', secret, {
      authorityHost: fake.origin,
      disableInstanceDiscovery: true,
      agent,
      retryOptions: { maxRetries: 0 },
    });
    return new SecretClient(fake.vaultUrl, credential, { agent, retryOptions: { maxRetries: 0 } });
  };

  it('reads a secret after the 401 challenge and a client-credentials token', async () => {
    const secret = await client('client-secret-value').getSecret('openai-key');
    expect(secret.value).toBe('sk-from-azure');
    expect(fake.requests[0]).toMatchObject({ authorized: false });
    expect(fake.requests.at(-1)).toMatchObject({ authorized: true });
  });

  it('refuses a wrong client secret', async () => {
    await expect(client('wrong-secret').getSecret('openai-key')).rejects.toThrow(/invalid_client|AADSTS7000215|Invalid client secret/i);
  });

  it('answers 404 for an unknown secret', async () => {
    await expect(client('client-secret-value').getSecret('missing')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('is refused by a client that does not trust its certificate', async () => {
    await expect(client('client-secret-value', null).getSecret('openai-key')).rejects.toThrow(/self[- ]signed|certificate/i);
  });
});
