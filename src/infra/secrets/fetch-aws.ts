import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AwsAuth } from './auth-config.js';
import type { FetchContext, SecretSource } from './secret-source.js';

/**
 * Reads a secret from AWS Secrets Manager with the official client (`GetSecretValue`, SigV4-signed
 * with the reference's access key), at the region's endpoint or `endpoint`. Connections go through the
 * outbound guard's lookup. The value is the `SecretString` (a binary secret as UTF-8 text).
 * @see https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html
 */
export async function fetchAws(source: SecretSource, ctx: FetchContext): Promise<string> {
  const auth = source.auth as AwsAuth;
  if (auth.endpoint) await ctx.checkUrl(auth.endpoint);
  const agentOptions = { keepAlive: false, lookup: ctx.lookup };
  const client = new SecretsManagerClient({
    region: auth.region,
    ...(auth.endpoint ? { endpoint: auth.endpoint } : {}),
    credentials: {
      accessKeyId: auth.access_key_id,
      secretAccessKey: auth.secret_access_key,
      ...(auth.session_token ? { sessionToken: auth.session_token } : {}),
    },
    maxAttempts: 1,
    requestHandler: {
      requestTimeout: ctx.timeoutMs,
      // Without it the handler only logs a warning when the time is up and the call waits on.
      throwOnRequestTimeout: true,
      connectionTimeout: ctx.timeoutMs,
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent({ ...agentOptions, ...(ctx.ca ? { ca: ctx.ca } : {}) }),
    },
  });
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: source.path }), {
      abortSignal: AbortSignal.timeout(ctx.timeoutMs),
    });
    if (out.SecretString !== undefined) return out.SecretString;
    if (out.SecretBinary !== undefined) return Buffer.from(out.SecretBinary).toString('utf8');
    throw new Error('AWS Secrets Manager answered no secret value');
  } finally {
    client.destroy();
  }
}
