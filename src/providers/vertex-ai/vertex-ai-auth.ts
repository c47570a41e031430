import { sign } from 'node:crypto';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { sha256Hex } from '../../foundation/lib/hash.js';
import type { Clock } from '../../foundation/lib/clock.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import type { CallContext } from '../provider.js';

/** The fields of a Google service-account key file the gateway uses. */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
  project_id?: string;
}

/** Scope of a Vertex AI access token. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_LIFETIME_S = 3600;
const PARAM = 'cloud2_service_account_json';

/**
 * Reads `cloud2_service_account_json` (an object, or its JSON text). Undefined when absent; a value
 * without `client_email` or `private_key` is a client error.
 * @see https://cloud.google.com/iam/docs/keys-create-delete
 */
export function parseServiceAccount(value: unknown): ServiceAccount | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const json = typeof value === 'string' ? tryParseJson(value) : value;
  if (!isObject(json) || typeof json.client_email !== 'string' || typeof json.private_key !== 'string') {
    throw new GatewayError('invalid_request', `'${PARAM}' must be a service-account key object with 'client_email' and 'private_key'.`, {
      param: PARAM,
    });
  }
  return {
    client_email: json.client_email,
    private_key: json.private_key,
    private_key_id: typeof json.private_key_id === 'string' ? json.private_key_id : undefined,
    token_uri: typeof json.token_uri === 'string' && json.token_uri ? json.token_uri : DEFAULT_TOKEN_URI,
    project_id: typeof json.project_id === 'string' ? json.project_id : undefined,
  };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * The RS256-signed JWT a service account presents to its `token_uri` (iss = client_email, scope
 * cloud-platform, aud = token_uri, valid one hour from `nowSeconds`).
 * @see https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests
 */
export function signServiceAccountAssertion(sa: ServiceAccount, nowSeconds: number): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(sa.private_key_id ? { kid: sa.private_key_id } : {}) };
  const claims = {
    iss: sa.client_email,
    scope: CLOUD_PLATFORM_SCOPE,
    aud: sa.token_uri,
    iat: nowSeconds,
    exp: nowSeconds + ASSERTION_LIFETIME_S,
  };
  const input = `${base64url(header)}.${base64url(claims)}`;
  let signature: Buffer;
  try {
    signature = sign('RSA-SHA256', Buffer.from(input), sa.private_key);
  } catch (err) {
    throw new GatewayError('invalid_request', `'${PARAM}.private_key' is not a usable RSA private key.`, {
      param: `${PARAM}.private_key`,
      cause: err,
    });
  }
  return `${input}.${signature.toString('base64url')}`;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Options of a token cache. */
export interface VertexTokenCacheOptions {
  /** A token is refreshed this long before it expires. Default 5 minutes. */
  refreshMarginMs?: number;
}

/**
 * Access tokens per service account: exchanged once, reused until `refreshMarginMs` before expiry, and
 * shared by concurrent callers (one exchange in flight per account, never one per request). Failures
 * are not cached.
 * @see https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
export class VertexTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<CachedToken>>();
  private readonly marginMs: number;

  constructor(opts: VertexTokenCacheOptions = {}) {
    this.marginMs = opts.refreshMarginMs ?? 5 * 60_000;
  }

  /** A valid access token for `sa`, from the cache or a fresh exchange. */
  async getToken(sa: ServiceAccount, http: HttpClient, clock: Clock, provider: string): Promise<string> {
    const key = sha256Hex(`${sa.client_email}\n${sa.token_uri}\n${sa.private_key}`);
    const cached = this.tokens.get(key);
    if (cached && clock.now() < cached.expiresAt - this.marginMs) return cached.token;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = exchange(sa, http, clock, provider).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const fresh = await pending;
    this.tokens.set(key, fresh);
    return fresh.token;
  }

  /** Forgets every token (tests, key rotation). */
  clear(): void {
    this.tokens.clear();
  }
}

const AUTH_ERRORS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'access_denied']);

async function exchange(sa: ServiceAccount, http: HttpClient, clock: Clock, provider: string): Promise<CachedToken> {
  const assertion = signServiceAccountAssertion(sa, Math.floor(clock.now() / 1000));
  const res = await http.sendText(
    {
      url: sa.token_uri,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    },
    provider,
  );
  const body = tryParseJson(res.text);
  if (res.status < 200 || res.status >= 300 || !isObject(body) || typeof body.access_token !== 'string') {
    const code = isObject(body) && typeof body.error === 'string' ? body.error : null;
    const detail = isObject(body) && typeof body.error_description === 'string' ? body.error_description : (code ?? `status ${res.status}`);
    const status = code && AUTH_ERRORS.has(code) ? 401 : res.status >= 400 ? res.status : 502;
    throw new GatewayError('provider_error', `The service account could not obtain an access token: ${detail}`, {
      status,
      type: status === 401 ? 'authentication_error' : 'provider_error',
      provider,
      publicCode: code,
    });
  }
  const lifetimeS = typeof body.expires_in === 'number' ? body.expires_in : ASSERTION_LIFETIME_S;
  return { token: body.access_token, expiresAt: clock.now() + lifetimeS * 1000 };
}

/**
 * Refuses a `token_uri` the gateway should not post to: only Google's token hosts (https, `*.googleapis.com`)
 * or the origin of the target's `custom_host` (already vetted by the custom-host guard) are allowed, so a
 * client-supplied key cannot make the gateway call arbitrary internal addresses.
 */
export function checkTokenUri(sa: ServiceAccount, customHost: string | undefined): void {
  let url: URL | undefined;
  try {
    url = new URL(sa.token_uri);
  } catch {
    url = undefined;
  }
  const google = url?.protocol === 'https:' && (url.hostname === 'googleapis.com' || url.hostname.endsWith('.googleapis.com'));
  let sameAsCustomHost = false;
  try {
    sameAsCustomHost = !!url && !!customHost && new URL(customHost).origin === url.origin;
  } catch {
    sameAsCustomHost = false;
  }
  if (!google && !sameAsCustomHost) {
    throw new GatewayError('invalid_request', `'${PARAM}.token_uri' must be an https googleapis.com URL or on the target's custom_host.`, {
      param: `${PARAM}.token_uri`,
    });
  }
}

/**
 * The Authorization header of a Vertex AI call: a service account's access token (exchanged and
 * cached through `tokens`), else the target's key used as a Bearer token.
 * @see https://cloud.google.com/vertex-ai/docs/authentication
 */
export async function vertexAuthHeaders(ctx: CallContext, tokens: VertexTokenCache, provider: string): Promise<Record<string, string>> {
  const sa = parseServiceAccount(ctx.target.config[PARAM]);
  if (sa) {
    checkTokenUri(sa, ctx.target.customHost);
    return { authorization: `Bearer ${await tokens.getToken(sa, ctx.http, ctx.clock, provider)}` };
  }
  if (ctx.target.apiKey) return { authorization: `Bearer ${ctx.target.apiKey}` };
  throw new GatewayError(
    'invalid_request',
    `Provider '${provider}' needs '${PARAM}' (a service-account key) or an access token as 'api_key'.`,
    { param: PARAM },
  );
}
