import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { startFakeSecretsManager, type FakeSecretsManager } from './server.js';

/** The fake against the official client: SigV4 is checked as AWS checks it; bad credentials fail as there. */
describe('fake AWS Secrets Manager with @aws-sdk/client-secrets-manager', () => {
  let fake: FakeSecretsManager;
  const creds = { accessKeyId: 'AKIAFAKEACCESSKEY01', secretAccessKey: 'fake-secret-access-key-0123456789' };
  beforeAll(async () => {
    fake = await startFakeSecretsManager({
      credentials: creds,
      region: 'eu-west-1',
      secrets: { 'prod/openai': '{"api_key":"sk-from-aws"}' },
    });
  });
  afterAll(async () => fake?.close());

  const client = (c = creds, region = 'eu-west-1') =>
    new SecretsManagerClient({ region, endpoint: fake.origin, credentials: c, maxAttempts: 1 });

  it('serves GetSecretValue to a correctly signed request', async () => {
    const out = await client().send(new GetSecretValueCommand({ SecretId: 'prod/openai' }));
    expect(out.SecretString).toBe('{"api_key":"sk-from-aws"}');
    expect(String(fake.requests.at(-1)!.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAFAKEACCESSKEY01\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request/,
    );
  });

  it('refuses a wrong secret key, an unknown access key, another region, and answers ResourceNotFound for unknown secrets', async () => {
    await expect(
      client({ ...creds, secretAccessKey: 'wrong' }).send(new GetSecretValueCommand({ SecretId: 'prod/openai' })),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    await expect(
      client({ ...creds, accessKeyId: 'AKIAOTHER' }).send(new GetSecretValueCommand({ SecretId: 'prod/openai' })),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    await expect(client(creds, 'us-east-1').send(new GetSecretValueCommand({ SecretId: 'prod/openai' }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
    await expect(client().send(new GetSecretValueCommand({ SecretId: 'nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});
