import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';
import { joinUrl } from '../openai-compatible/url.js';
import { checkUrlField, urlField } from '../url-fields.js';
import { loadBedrockSdk } from './bedrock-sdk.js';

/** The SigV4 signing name of Bedrock Runtime (the host is `bedrock-runtime`, the service is `bedrock`). */
export const BEDROCK_SIGNING_SERVICE = 'bedrock';
/** Region used when the config sets no `cloud1_region`. */
export const BEDROCK_DEFAULT_REGION = 'us-east-1';

/** How a Bedrock call authenticates: SigV4 with access keys, or a Bedrock API key as a Bearer token. */
export type BedrockAuth =
  | { kind: 'sigv4'; region: string; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: 'bearer'; region: string; token: string };

function str(config: ProviderTarget['config'], key: string): string | undefined {
  const v = config[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * Reads the credentials of a target: `cloud1_access_key_id` + `cloud1_secret_access_key`
 * (+ `cloud1_session_token`), region `cloud1_region` (default us-east-1). Without access keys, an
 * `api_key` is used as a Bedrock API key (Bearer). Missing credentials, or a region that is not an AWS
 * region (it becomes the endpoint's host), are a 400.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html
 */
export function readBedrockAuth(target: ProviderTarget): BedrockAuth {
  const region = urlField(target.config, 'cloud1_region') ?? BEDROCK_DEFAULT_REGION;
  const accessKeyId = str(target.config, 'cloud1_access_key_id');
  const secretAccessKey = str(target.config, 'cloud1_secret_access_key');
  if (accessKeyId && secretAccessKey) {
    return { kind: 'sigv4', region, accessKeyId, secretAccessKey, sessionToken: str(target.config, 'cloud1_session_token') };
  }
  if (!accessKeyId && !secretAccessKey && target.apiKey) return { kind: 'bearer', region, token: target.apiKey };
  const param = accessKeyId ? 'cloud1_secret_access_key' : 'cloud1_access_key_id';
  throw new GatewayError(
    'invalid_request',
    `Provider 'bedrock' needs config 'cloud1_access_key_id' and 'cloud1_secret_access_key' (missing '${param}').`,
    {
      param,
    },
  );
}

/** The Bedrock Runtime base URL of a target: `custom_host` when set, else the regional endpoint (the region checked again). */
export function bedrockBaseUrl(target: ProviderTarget, region: string): string {
  return target.customHost ?? `https://bedrock-runtime.${checkUrlField('cloud1_region', region)}.amazonaws.com`;
}

/** URL of a model operation, the model id (which may be an ARN) percent-encoded as one path segment. */
export function bedrockModelUrl(
  target: ProviderTarget,
  region: string,
  modelId: string,
  operation: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream',
): string {
  return joinUrl(bedrockBaseUrl(target, region), `/model/${encodeURIComponent(modelId)}/${operation}`);
}

/**
 * Headers of a signed Bedrock call. SigV4 covers host, content-type, accept, x-amz-date,
 * x-amz-content-sha256 and x-amz-security-token (with a session token). Forwarded headers travel
 * unsigned and never replace the signed ones.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */
export async function signBedrockRequest(
  auth: BedrockAuth,
  url: string,
  body: string,
  accept: string,
  forwardHeaders: Readonly<Record<string, string>>,
  signingDate?: Date,
): Promise<Record<string, string>> {
  const { SignatureV4, Sha256 } = await loadBedrockSdk();
  const base: Record<string, string> = { 'content-type': 'application/json', accept };
  const forwarded = { ...forwardHeaders };
  for (const name of Object.keys(forwarded)) {
    if (name === 'host' || name === 'authorization' || name.startsWith('x-amz-')) delete forwarded[name];
  }
  if (auth.kind === 'bearer') return { ...forwarded, ...base, authorization: `Bearer ${auth.token}` };
  const u = new URL(url);
  const signer = new SignatureV4({
    service: BEDROCK_SIGNING_SERVICE,
    region: auth.region,
    credentials: { accessKeyId: auth.accessKeyId, secretAccessKey: auth.secretAccessKey, sessionToken: auth.sessionToken },
    sha256: Sha256,
  });
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of u.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: u.protocol,
      hostname: u.hostname,
      port: u.port ? Number(u.port) : undefined,
      path: u.pathname,
      query,
      headers: { ...base, host: u.host },
      body,
    },
    { signingDate },
  );
  const headers: Record<string, string> = { ...forwarded };
  for (const [k, v] of Object.entries(signed.headers)) if (k !== 'host') headers[k] = String(v);
  return headers;
}
