import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../foundation/lib/hash.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import type { CallContext, ProviderTarget } from '../provider.js';

/** Default Entra ID scope of Azure OpenAI tokens (`cloud3_entra_scope` overrides it). */
export const AZURE_DEFAULT_ENTRA_SCOPE = 'https://cognitiveservices.azure.com/.default';
const DEFAULT_AUTHORITY = 'https://login.microsoftonline.com';

/** Client-credentials settings for an Entra ID token. */
export interface EntraClientCredentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  /** Authority host, default `https://login.microsoftonline.com`. */
  authorityHost: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Microsoft Entra authority hosts (public, US Government, China). */
const ENTRA_AUTHORITY_HOSTS = new Set([
  'login.microsoftonline.com',
  'login.microsoftonline.us',
  'login.chinacloudapi.cn',
  'login.partner.microsoftonline.cn',
]);

/**
 * Refuses an authority host the gateway should not post a client secret to: only Microsoft's https
 * authority hosts or the origin of the target's `custom_host` (already vetted by the custom-host guard).
 */
export function checkAuthorityHost(authorityHost: string, customHost: string | undefined): void {
  let url: URL | undefined;
  try {
    url = new URL(authorityHost);
  } catch {
    url = undefined;
  }
  const microsoft = url?.protocol === 'https:' && ENTRA_AUTHORITY_HOSTS.has(url.hostname);
  let sameAsCustomHost = false;
  try {
    sameAsCustomHost = !!url && !!customHost && new URL(customHost).origin === url.origin;
  } catch {
    sameAsCustomHost = false;
  }
  if (!microsoft && !sameAsCustomHost) {
    throw new GatewayError(
      'invalid_request',
      "'cloud3_entra_authority_host' must be a Microsoft Entra https host or on the target's custom_host.",
      {
        param: 'cloud3_entra_authority_host',
      },
    );
  }
}

/**
 * Entra ID client credentials from the target's config (`cloud3_entra_tenant_id`, `cloud3_entra_client_id`,
 * `cloud3_entra_client_secret`, optional `cloud3_entra_scope` and `cloud3_entra_authority_host`), or undefined.
 * @see https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow
 */
export function entraCredentialsOf(target: ProviderTarget): EntraClientCredentials | undefined {
  const c = target.config;
  const tenantId = str(c.cloud3_entra_tenant_id);
  const clientId = str(c.cloud3_entra_client_id);
  const clientSecret = str(c.cloud3_entra_client_secret);
  if (!tenantId || !clientId || !clientSecret) return undefined;
  return {
    tenantId,
    clientId,
    clientSecret,
    scope: str(c.cloud3_entra_scope) ?? AZURE_DEFAULT_ENTRA_SCOPE,
    authorityHost: str(c.cloud3_entra_authority_host) ?? DEFAULT_AUTHORITY,
  };
}

/**
 * Static auth headers of an Azure OpenAI call: config `Authorization` (`Bearer <token>`, Entra ID) is sent as
 * `Authorization`; otherwise the key goes in the `api-key` header. Returns no header when Entra client
 * credentials are configured (the token is added by {@link withEntraToken}); throws when nothing is configured.
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference#authentication
 */
export function azureOpenAIAuthHeaders(target: ProviderTarget): Record<string, string> {
  const authorization = str(target.config.Authorization);
  if (authorization) return { authorization: /^bearer /i.test(authorization) ? authorization : `Bearer ${authorization}` };
  if (target.apiKey) return { 'api-key': target.apiKey };
  if (entraCredentialsOf(target)) return {};
  throw new GatewayError(
    'invalid_request',
    "Azure OpenAI needs 'api_key', config 'Authorization: Bearer <token>', or Entra client credentials.",
    {
      param: 'api_key',
    },
  );
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

const tokenCache = new Map<string, CachedToken>();
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Fetches (and caches until shortly before expiry) an Entra ID access token with the client-credentials grant,
 * through the gateway's HTTP client. A refused exchange becomes a `provider_error` with the token endpoint's status.
 * @see https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow#get-a-token
 */
export async function getEntraToken(creds: EntraClientCredentials, ctx: CallContext, provider: string): Promise<string> {
  const key = sha256Hex(`${creds.authorityHost}|${creds.tenantId}|${creds.clientId}|${creds.scope}|${creds.clientSecret}`);
  const cached = tokenCache.get(key);
  if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > ctx.clock.now()) return cached.token;
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: creds.clientId,
    client_secret: creds.clientSecret,
    scope: creds.scope,
  }).toString();
  const url = `${creds.authorityHost.replace(/\/+$/, '')}/${encodeURIComponent(creds.tenantId)}/oauth2/v2.0/token`;
  const res = await ctx.http.sendText(
    { url, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, signal: ctx.signal },
    provider,
  );
  const parsed = tryParseJson(res.text);
  if (res.status !== 200 || !isObject(parsed) || typeof parsed.access_token !== 'string') {
    const detail = isObject(parsed) && typeof parsed.error_description === 'string' ? parsed.error_description : `status ${res.status}`;
    throw new GatewayError('provider_error', `Entra ID token request failed: ${detail}`, {
      provider,
      status: res.status >= 400 ? res.status : 502,
      type: 'authentication_error',
      publicCode: isObject(parsed) && typeof parsed.error === 'string' ? parsed.error : null,
    });
  }
  const expiresIn = typeof parsed.expires_in === 'number' ? parsed.expires_in : Number(parsed.expires_in ?? 3599);
  tokenCache.set(key, { token: parsed.access_token, expiresAt: ctx.clock.now() + expiresIn * 1000 });
  return parsed.access_token;
}

/** Adds `Authorization: Bearer <Entra token>` to a call's headers when the target uses client credentials and no static credential. */
export async function withEntraToken(headers: Record<string, string>, ctx: CallContext, provider: string): Promise<Record<string, string>> {
  if (headers.authorization || headers['api-key']) return headers;
  const creds = entraCredentialsOf(ctx.target);
  if (!creds) return headers;
  checkAuthorityHost(creds.authorityHost, ctx.target.customHost);
  return { ...headers, authorization: `Bearer ${await getEntraToken(creds, ctx, provider)}` };
}
