import type { ServerResponse } from 'node:http';
import { FakeServer, sendJson, type RecordedRequest } from '../shared/fake-server.js';
import { verifySigV4, type FakeAwsCredentials } from '../bedrock/verify-sigv4.js';

/** What the fake holds: the accepted credentials, its region, and secrets by name. */
export interface FakeSecretsManagerOptions {
  credentials: FakeAwsCredentials;
  region: string;
  secrets: Record<string, string>;
}

/**
 * A fake AWS Secrets Manager (JSON 1.1 protocol, `POST /` with `X-Amz-Target`): verifies each
 * request's SigV4 signature (service `secretsmanager`, the fake's region, the accepted access key and
 * session token) as AWS does, and serves `GetSecretValue`. Errors have AWS's shape (`__type`, `message`,
 * `x-amzn-errortype`). `secrets` may be changed while it runs.
 * @see https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html
 */
export class FakeSecretsManager extends FakeServer {
  constructor(readonly options: FakeSecretsManagerOptions) {
    super((req, res) => handle(this.options, req, res));
  }
}

export async function startFakeSecretsManager(options: FakeSecretsManagerOptions): Promise<FakeSecretsManager> {
  return new FakeSecretsManager(options).start();
}

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { __type: type, message }, { 'x-amzn-errortype': type, 'content-type': 'application/x-amz-json-1.1' });
}

async function handle(opts: FakeSecretsManagerOptions, req: RecordedRequest, res: ServerResponse): Promise<void> {
  const failure = await verifySigV4(req, opts.credentials, { region: opts.region, service: 'secretsmanager' });
  if (failure) return awsError(res, failure.type === 'MissingAuthenticationTokenException' ? 403 : 400, failure.type, failure.message);
  const target = String(req.headers['x-amz-target'] ?? '');
  if (req.method !== 'POST' || req.path !== '/' || !target.startsWith('secretsmanager.'))
    return awsError(res, 400, 'UnknownOperationException', 'Unknown operation');
  if (target !== 'secretsmanager.GetSecretValue')
    return awsError(res, 400, 'UnknownOperationException', `Operation ${target} is not supported by the fake`);
  let body: { SecretId?: unknown };
  try {
    body = JSON.parse(req.rawBody.toString('utf8')) as { SecretId?: unknown };
  } catch {
    return awsError(res, 400, 'SerializationException', 'Malformed request body');
  }
  const id = typeof body.SecretId === 'string' ? body.SecretId : '';
  const value = opts.secrets[id];
  if (value === undefined) return awsError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
  sendJson(
    res,
    200,
    {
      ARN: `arn:aws:secretsmanager:${opts.region}:000000000000:secret:${id}-AbCdEf`,
      Name: id,
      SecretString: value,
      VersionId: 'v1',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    },
    { 'content-type': 'application/x-amz-json-1.1' },
  );
}
