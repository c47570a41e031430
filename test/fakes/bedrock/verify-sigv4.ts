import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import type { RecordedRequest } from '../shared/fake-server.js';

/** The credentials a fake AWS service accepts. */
export interface FakeAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Why a request was refused: an AWS error type and message (all answered with 403). */
export interface SigV4Failure {
  type: string;
  message: string;
}

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const INVALID_TOKEN = 'The security token included in the request is invalid.';

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}

function parseAmzDate(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

/**
 * Verifies the AWS Signature Version 4 of a received request the way AWS does: parses the
 * Authorization header, checks the access key, session token, scope (region, service), date skew and
 * payload hash, then recomputes the signature with @smithy/signature-v4 from the request's method,
 * path, query, signed headers and body with the known secret, and compares.
 * Returns undefined when the signature is valid.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */
export async function verifySigV4(
  req: RecordedRequest,
  creds: FakeAwsCredentials,
  opts: { region: string; service: string; maxSkewMs?: number; now?: number },
): Promise<SigV4Failure | undefined> {
  const auth = headerValue(req.headers.authorization);
  if (!auth) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;_.-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    return {
      type: 'IncompleteSignatureException',
      message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature'.`,
    };
  const [, accessKeyId, scopeDate, region, service, signedHeaderList, signature] = m as unknown as string[];
  if (accessKeyId !== creds.accessKeyId) return { type: 'UnrecognizedClientException', message: INVALID_TOKEN };
  const token = headerValue(req.headers['x-amz-security-token']);
  if ((creds.sessionToken ?? undefined) !== token) return { type: 'UnrecognizedClientException', message: INVALID_TOKEN };
  if (region !== opts.region) return { type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region. ` };
  if (service !== opts.service)
    return { type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${opts.service}'. ` };
  const amzDate = headerValue(req.headers['x-amz-date']) ?? '';
  const date = parseAmzDate(amzDate);
  if (!date || !amzDate.startsWith(scopeDate!))
    return { type: 'IncompleteSignatureException', message: 'Missing or malformed X-Amz-Date header.' };
  const skew = Math.abs((opts.now ?? Date.now()) - date.getTime());
  if (skew > (opts.maxSkewMs ?? 15 * 60_000))
    return { type: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is outside the allowed time window.` };
  const bodyHash = createHash('sha256').update(req.rawBody).digest('hex');
  const claimed = headerValue(req.headers['x-amz-content-sha256']);
  if (claimed !== undefined && claimed !== bodyHash) return { type: 'InvalidSignatureException', message: SIGNATURE_MISMATCH };

  const signedHeaders = signedHeaderList!.split(';');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const v = headerValue(req.headers[name]);
    if (v === undefined) return { type: 'InvalidSignatureException', message: SIGNATURE_MISMATCH };
    headers[name] = v;
  }
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of req.query) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const host = headers.host ?? '';
  const signer = new SignatureV4({ service: service!, region: region!, credentials: creds, sha256: Sha256, applyChecksum: false });
  const resigned = await signer.sign(
    { method: req.method, protocol: 'http:', hostname: host.split(':')[0]!, path: req.path, query, headers, body: req.rawBody },
    { signingDate: date, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(resigned.headers.authorization))?.[1];
  const expectedList = /SignedHeaders=([^,]+),/.exec(String(resigned.headers.authorization))?.[1];
  if (expected !== signature || expectedList !== signedHeaderList)
    return { type: 'InvalidSignatureException', message: SIGNATURE_MISMATCH };
  return undefined;
}
