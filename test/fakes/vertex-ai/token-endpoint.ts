import type { ServerResponse } from 'node:http';
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { sendJson, type RecordedRequest } from '../shared/fake-server.js';

/** A service account the fake token endpoint knows: its email and the public half of its key. */
export interface FakeServiceAccount {
  client_email: string;
  publicKey: KeyObject | string;
}

interface IssuedToken {
  email: string;
  expiresAt: number;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
/** The audience Google's own client libraries put in the assertion. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/**
 * Google's OAuth 2.0 token endpoint for service accounts (JWT bearer grant), verifying each assertion:
 * RS256 signature checked with the account's public key (node:crypto verify), known `iss`, `aud` equal
 * to the token URL, `iat`/`exp` current and at most one hour apart, cloud-platform scope. Failures
 * answer 400 `invalid_grant` / `invalid_scope` / `unsupported_grant_type` as Google does.
 * @see https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
export class FakeTokenEndpoint {
  private readonly issued = new Map<string, IssuedToken>();
  private readonly accounts = new Map<string, FakeServiceAccount>();

  constructor(
    accounts: FakeServiceAccount[],
    private readonly lifetimeS = 3600,
    private readonly now: () => number = Date.now,
  ) {
    for (const a of accounts) this.accounts.set(a.client_email, a);
  }

  /** Issues a token by hand (for tests of the plain Bearer key path). */
  issue(email = 'manual'): string {
    const token = `ya29.fake-${randomBytes(12).toString('hex')}`;
    this.issued.set(token, { email, expiresAt: this.now() + this.lifetimeS * 1000 });
    return token;
  }

  /** True when `token` was issued here and has not expired. */
  accepts(token: string | undefined): boolean {
    const t = token ? this.issued.get(token) : undefined;
    return !!t && t.expiresAt > this.now();
  }

  /** Handles one POST to the token URL; `audiences` are the `aud` values accepted. */
  handle(req: RecordedRequest, res: ServerResponse, audiences: string[]): void {
    const form = new URLSearchParams(req.rawBody.toString('utf8'));
    const fail = (error: string, description: string) => sendJson(res, 400, { error, error_description: description });
    if (form.get('grant_type') !== JWT_BEARER)
      return fail('unsupported_grant_type', 'Invalid grant_type: ' + (form.get('grant_type') ?? ''));
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return fail('invalid_grant', 'Invalid JWT: malformed assertion.');
    const [h, p, s] = parts as [string, string, string];
    let header: any;
    let claims: any;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    } catch {
      return fail('invalid_grant', 'Invalid JWT: undecodable header or claims.');
    }
    if (header.alg !== 'RS256') return fail('invalid_grant', 'Invalid JWT: unsupported alg ' + String(header.alg));
    const account = this.accounts.get(claims.iss);
    if (!account) return fail('invalid_grant', 'Invalid grant: account not found');
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), account.publicKey, Buffer.from(s, 'base64url')))
      return fail('invalid_grant', 'Invalid JWT Signature.');
    const nowS = Math.floor(this.now() / 1000);
    if (!audiences.includes(claims.aud)) return fail('invalid_grant', `Invalid JWT: aud ${String(claims.aud)} is not the token URL.`);
    if (
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number' ||
      claims.exp <= nowS ||
      claims.iat > nowS + 60 ||
      claims.exp - claims.iat > 3600
    ) {
      return fail(
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(CLOUD_PLATFORM))
      return fail('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const token = this.issue(claims.iss);
    sendJson(res, 200, { access_token: token, expires_in: this.lifetimeS, token_type: 'Bearer' });
  }
}
