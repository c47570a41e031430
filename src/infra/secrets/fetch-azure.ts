import { Agent as HttpsAgent } from 'node:https';
import { ClientSecretCredential } from '@azure/identity';
import { SecretClient } from '@azure/keyvault-secrets';
import type { AzureAuth } from './auth-config.js';
import type { FetchContext, SecretSource } from './secret-source.js';

/**
 * Reads a secret from Azure Key Vault with the official clients: `SecretClient` (challenge-based
 * bearer auth: the vault's 401 names the authority and resource, the credential then asks Entra ID
 * for a token) and a service principal's `ClientSecretCredential` (at `authority_host` for sovereign
 * clouds). Connections go through the outbound guard's lookup; `SECRET_MANAGER_CA_FILE` adds CAs.
 * @see https://learn.microsoft.com/en-us/azure/key-vault/general/authentication-requests-and-responses
 * @see https://learn.microsoft.com/en-us/rest/api/keyvault/secrets/get-secret/get-secret
 */
export async function fetchAzure(source: SecretSource, ctx: FetchContext): Promise<string> {
  const auth = source.auth as AzureAuth;
  await ctx.checkUrl(auth.vault_url);
  if (auth.authority_host) await ctx.checkUrl(auth.authority_host);
  const agent = new HttpsAgent({ keepAlive: false, lookup: ctx.lookup, ...(ctx.ca ? { ca: ctx.ca } : {}), timeout: ctx.timeoutMs });
  // No redirect is followed (the SDK's pipeline follows same-origin ones by default): a 3xx fails the read.
  const common = { agent, retryOptions: { maxRetries: 0 }, redirectOptions: { maxRetries: 0 } };
  try {
    const credential = new ClientSecretCredential(auth.tenant_id, auth.client_id, auth.client_secret, {
      ...common,
      ...(auth.authority_host ? { authorityHost: auth.authority_host, disableInstanceDiscovery: true } : {}),
    });
    const client = new SecretClient(auth.vault_url, credential, common);
    const secret = await client.getSecret(source.path, { abortSignal: AbortSignal.timeout(ctx.timeoutMs) });
    if (secret.value === undefined) throw new Error('Azure Key Vault answered no secret value');
    return secret.value;
  } finally {
    agent.destroy();
  }
}
