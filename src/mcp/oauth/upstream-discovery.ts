import type * as Oidc from 'openid-client';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { OutboundPolicy } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { McpIntegration } from '../../store/repos/mcp.js';
import type { UpstreamFetch } from '../upstream-fetch.js';

/** How long a discovered configuration is reused (a change of the integration rediscovers at once). */
const TTL_MS = 60 * 60 * 1000;

/** What the connect flow and refreshes need of an upstream's authorization server. */
export interface UpstreamAuthorization {
  /** openid-client's configuration: the server's metadata, the integration's client, the guarded fetch. */
  config: Oidc.Configuration;
  /** The RFC 8707 resource indicator sent with authorization and token requests (the MCP server's URL). */
  resource: string;
  /** Scopes asked for, space-separated ('' for none). */
  scope: string;
}

interface Entry {
  version: number;
  until: number;
  value: Promise<UpstreamAuthorization>;
}

/** Why a discovery or token request failed, without a token or secret (openid-client's and its causes' messages). */
export function reasonOf(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 3; c = c.cause, depth++) {
    if (!parts.includes(c.message)) parts.push(c.message);
    const err = (c as { error?: unknown }).error;
    if (typeof err === 'string' && !parts.includes(err)) parts.push(err);
  }
  return parts.join('; ');
}

/**
 * Finds the authorization server of an `auth_type: oauth` MCP integration as the MCP authorization
 * specification asks, with the MCP SDK's discovery functions: an unauthenticated probe of the upstream
 * whose 401 may name its RFC 9728 protected-resource metadata (`WWW-Authenticate: Bearer
 * resource_metadata=…`), else `/.well-known/oauth-protected-resource[/path]`; the first authorization
 * server it lists (or `oauth.authorization_server` when set, which overrides it; or the upstream's
 * origin when there is no metadata); then that server's RFC 8414 or OpenID Connect metadata. The
 * metadata's `resource` must be the upstream's URL, and the server must support PKCE S256. Every URL
 * goes through the MCP upstream fetch (custom-host guard and the outbound policy's connector). The
 * result is an openid-client configuration with the integration's client (secret opened from the
 * secret box), cached per integration for an hour; a failure is not cached.
 */
export class UpstreamDiscovery {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetcher: UpstreamFetch,
    private readonly outbound: OutboundPolicy,
    private readonly secrets: SecretBox,
    private readonly now: () => number,
  ) {}

  /** The authorization of `i` (discovered once, then cached). 502 `provider_unreachable` when discovery fails. */
  async of(i: McpIntegration): Promise<UpstreamAuthorization> {
    const hit = this.entries.get(i.id);
    if (hit && hit.version === i.updated_at && hit.until > this.now()) return hit.value;
    const value = this.discover(i);
    this.entries.set(i.id, { version: i.updated_at, until: this.now() + TTL_MS, value });
    value.catch(() => {
      if (this.entries.get(i.id)?.value === value) this.entries.delete(i.id);
    });
    return value;
  }

  private async discover(i: McpIntegration): Promise<UpstreamAuthorization> {
    const oidc = await import('openid-client');
    const clientId = i.oauth.client_id;
    if (!clientId) throw new GatewayError('conflict', `MCP integration '${i.slug}' has no oauth.client_id: set the client the gateway is registered as at the upstream's authorization server.`, { param: 'oauth.client_id' });
    const fetchFn = this.fetcher.fetchFor();
    const failed = (what: string, e?: unknown) => new GatewayError('provider_unreachable', `Upstream OAuth discovery of MCP integration '${i.slug}' failed: ${what}${e === undefined ? '' : `: ${reasonOf(e)}`}`);
    let challenge: { resourceMetadataUrl?: URL; scope?: string } = {};
    try {
      const probe = await fetchFn(i.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'gateway-oauth-discovery', method: 'ping' }) });
      if (probe.status === 401) challenge = extractWWWAuthenticateParams(probe);
      await probe.body?.cancel().catch(() => undefined);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw failed('the upstream could not be reached', e);
    }
    const prm = await discoverOAuthProtectedResourceMetadata(i.url, challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}, fetchFn).catch((e: unknown) => {
      if (e instanceof GatewayError) throw e;
      return undefined;
    });
    if (prm && !checkResourceAllowed({ requestedResource: i.url, configuredResource: prm.resource })) throw failed(`its protected-resource metadata names the resource '${prm.resource}', not '${i.url}'`);
    const issuer = i.oauth.authorization_server ?? prm?.authorization_servers?.[0] ?? new URL('/', i.url).href;
    let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
    try {
      metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw failed(`the metadata of authorization server '${issuer}' could not be read`, e);
    }
    if (!metadata) throw failed(`authorization server '${issuer}' publishes no RFC 8414 or OpenID Connect metadata`);
    if (!(metadata.code_challenge_methods_supported ?? []).includes('S256')) throw failed(`authorization server '${issuer}' does not announce PKCE S256 (code_challenge_methods_supported)`);
    const secret = i.oauth_secret_ciphertext ? this.secrets.decrypt(i.oauth_secret_ciphertext, `${i.id}:oauth`) : undefined;
    const methods = metadata.token_endpoint_auth_methods_supported;
    const auth = secret === undefined ? oidc.None() : methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret);
    const config = new oidc.Configuration(metadata as unknown as Oidc.ServerMetadata, clientId, undefined, auth);
    config[oidc.customFetch] = (url, options) => fetchFn(url, options as RequestInit);
    config.timeout = 10;
    // Plain http only to hosts trusted by TRUSTED_CUSTOM_HOSTS (a local authorization server); openid-client refuses it otherwise.
    if (new URL(metadata.issuer).protocol === 'http:' && this.outbound.trusts(new URL(metadata.issuer).hostname)) oidc.allowInsecureRequests(config);
    const scopes = i.oauth.scopes?.length ? i.oauth.scopes : challenge.scope ? challenge.scope.split(' ') : (prm?.scopes_supported ?? []);
    return { config, resource: prm?.resource ?? i.url, scope: scopes.join(' ') };
  }
}
