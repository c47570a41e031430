import type * as Oidc from 'openid-client';
import type { Kysely } from 'kysely';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  registerClient,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import type { OutboundPolicy } from '../../../foundation/lib/outbound-policy.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import type { Database } from '../../../infra/store/schema.js';
import type { McpIntegration } from '../../../infra/store/repos/mcp.js';
import {
  findMcpOAuthClient,
  getMcpOAuthClient,
  replaceMcpOAuthClient,
  saveMcpOAuthClient,
  type McpOAuthClient,
} from '../../../infra/store/repos/mcp-oauth-clients.js';
import type { UpstreamFetch } from '../upstream-fetch.js';

/** How long a discovered configuration is reused (a change of the integration rediscovers at once). */
const TTL_MS = 60 * 60 * 1000;

/** What the connect flow and refreshes need of an upstream's authorization server. */
export interface UpstreamAuthorization {
  /** openid-client's configuration: the server's metadata, the client, the guarded fetch. */
  config: Oidc.Configuration;
  /** The RFC 8707 resource indicator sent with authorization and token requests (the MCP server's URL). */
  resource: string;
  /** Scopes asked for, space-separated ('' for none). */
  scope: string;
  /** The client the gateway registered at the server (RFC 7591); null when the integration names its `oauth.client_id`. */
  registeredClientId: string | null;
}

/**
 * Which client acts, for an integration without `oauth.client_id` (ignored otherwise): the one registered
 * for a redirect URI (`register`: registered now when there is none: a connect), or the one a connection's
 * tokens were issued to, looked for among `removed` first (registrations a write deleted with the
 * connections whose grants are being revoked: the store no longer has them).
 */
export type ClientChoice = { redirectUri: string; register?: boolean } | { clientId: string | null; removed?: readonly McpOAuthClient[] };

/** What discovery found about an integration's authorization server. */
interface ServerInfo {
  metadata: NonNullable<Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>>;
  resource: string;
  scope: string;
}

interface Entry {
  /** What discovery read of the integration (`discoveryInputs`). */
  inputs: string;
  /** The integration's `updated_at` when the entry was made. */
  updatedAt: number;
  until: number;
  value: Promise<ServerInfo>;
}

/**
 * Entries a cache holds before adding one sweeps out the expired (integrations deleted or unused for an hour:
 * the cache would otherwise keep one entry per integration ever discovered, until the process ends).
 */
const SWEEP_AT = 64;

function sweepExpired(entries: Map<string, Entry>, now: number): void {
  for (const [id, e] of entries) if (e.until <= now) entries.delete(id);
}

/** What discovery reads of an integration: its URL, `oauth.authorization_server` and `oauth.scopes`; a change of any discovers again. */
function discoveryInputs(i: McpIntegration): string {
  return JSON.stringify([i.url, i.oauth.authorization_server ?? null, i.oauth.scopes ?? null]);
}

/** The display name the gateway registers under. */
const CLIENT_NAME = 'AI gateway (MCP)';

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
 * goes through the MCP upstream fetch (custom-host guard and the outbound policy's connector). What it
 * finds is cached per integration for an hour; a failure is not cached.
 *
 * The client: the integration's `oauth.client_id` (its secret opened from the secret box); without one,
 * the client the gateway registers at the server's `registration_endpoint` (RFC 7591, the MCP SDK's
 * `registerClient`) at a user's first connect, one per redirect URI, stored with its secret sealed and
 * shared by every replica (`mcp_oauth_clients`).
 */
export class UpstreamDiscovery {
  private readonly entries = new Map<string, Entry>();
  /** Per integration, the discovery of settings a write replaced (`server`). */
  private readonly replaced = new Map<string, Entry>();

  constructor(
    private readonly fetcher: UpstreamFetch,
    private readonly outbound: OutboundPolicy,
    private readonly secrets: SecretBox,
    private readonly now: () => number,
    private readonly db: Kysely<Database>,
  ) {}

  /**
   * The authorization of `i` for the client `client` names. 502 `provider_unreachable` when discovery or a
   * registration fails; 409 `conflict` when the integration has no client and none can be registered.
   */
  async of(i: McpIntegration, client: ClientChoice = { clientId: null }): Promise<UpstreamAuthorization> {
    const server = await this.server(i);
    const oidc = await import('openid-client');
    if (i.oauth.client_id) {
      const secret = i.oauth_secret_ciphertext ? this.secrets.decrypt(i.oauth_secret_ciphertext, `${i.id}:oauth`) : undefined;
      const methods = server.metadata.token_endpoint_auth_methods_supported;
      const auth =
        secret === undefined
          ? oidc.None()
          : methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
            ? oidc.ClientSecretPost(secret)
            : oidc.ClientSecretBasic(secret);
      return {
        config: this.configuration(oidc, server, i.oauth.client_id, auth),
        resource: server.resource,
        scope: server.scope,
        registeredClientId: null,
      };
    }
    const registered = await this.registeredClient(i, server, client);
    const secret = registered.client_secret_ciphertext
      ? this.secrets.decrypt(registered.client_secret_ciphertext, `${registered.id}:client`)
      : '';
    const method = registered.token_endpoint_auth_method;
    const auth =
      method === 'none' ? oidc.None() : method === 'client_secret_post' ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret);
    return {
      config: this.configuration(oidc, server, registered.client_id, auth),
      resource: server.resource,
      scope: server.scope,
      registeredClientId: registered.client_id,
    };
  }

  private configuration(oidc: typeof Oidc, server: ServerInfo, clientId: string, auth: Oidc.ClientAuth): Oidc.Configuration {
    const config = new oidc.Configuration(server.metadata as unknown as Oidc.ServerMetadata, clientId, undefined, auth);
    const fetchFn = this.fetcher.fetchFor();
    config[oidc.customFetch] = (url, options) => fetchFn(url, options as RequestInit);
    config.timeout = 10;
    // Plain http only to hosts trusted by TRUSTED_CUSTOM_HOSTS (a local authorization server); openid-client refuses it otherwise.
    const issuer = new URL(server.metadata.issuer);
    if (issuer.protocol === 'http:' && this.outbound.trusts(issuer.hostname)) oidc.allowInsecureRequests(config);
    return config;
  }

  /** The client registered for `i` as `client` asks, registering one when asked to and there is none (or its secret expired). */
  private async registeredClient(i: McpIntegration, server: ServerInfo, client: ClientChoice): Promise<McpOAuthClient> {
    const issuer = server.metadata.issuer;
    if ('clientId' in client) {
      const id = client.clientId;
      const found =
        id === null ? undefined : (client.removed?.find((r) => r.client_id === id) ?? (await getMcpOAuthClient(this.db, i.id, id)));
      if (!found)
        throw new GatewayError(
          'conflict',
          `The OAuth client of MCP integration '${i.slug}' changed since this connection was made: connect again.`,
          { param: 'oauth.client_id' },
        );
      return found;
    }
    const found = await findMcpOAuthClient(this.db, i.id, issuer, client.redirectUri);
    const usable = found && (found.secret_expires_at === null || found.secret_expires_at > this.now());
    if (usable) return found;
    if (!client.register)
      throw new GatewayError(
        'conflict',
        `The gateway's registration at the authorization server of MCP integration '${i.slug}' changed since this authorization began: connect again.`,
      );
    if (!server.metadata.registration_endpoint) {
      throw new GatewayError(
        'conflict',
        `MCP integration '${i.slug}' has no oauth.client_id, and its authorization server '${issuer}' offers no dynamic client registration (no registration_endpoint in its metadata): set oauth.client_id (and client_secret) to the client registered there for the gateway.`,
        { param: 'oauth.client_id' },
      );
    }
    const supported = server.metadata.token_endpoint_auth_methods_supported;
    // A confidential client (the gateway keeps a secret safely), as the server allows; a public client with PKCE otherwise.
    const asked =
      !supported || supported.includes('client_secret_basic')
        ? 'client_secret_basic'
        : supported.includes('client_secret_post')
          ? 'client_secret_post'
          : 'none';
    let info: Awaited<ReturnType<typeof registerClient>>;
    try {
      info = await registerClient(issuer, {
        metadata: server.metadata,
        clientMetadata: {
          client_name: CLIENT_NAME,
          redirect_uris: [client.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: asked,
        },
        ...(server.scope ? { scope: server.scope } : {}),
        fetchFn: this.fetcher.fetchFor(),
      });
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw new GatewayError(
        'provider_unreachable',
        `The dynamic client registration of the gateway at the authorization server of MCP integration '${i.slug}' failed: ${reasonOf(e)}`,
      );
    }
    const method = info.token_endpoint_auth_method ?? (info.client_secret ? 'client_secret_basic' : 'none');
    if (!['client_secret_basic', 'client_secret_post', 'none'].includes(method) || (method !== 'none' && !info.client_secret)) {
      throw new GatewayError(
        'provider_unreachable',
        `The authorization server of MCP integration '${i.slug}' registered the gateway with the client authentication '${method}'${method !== 'none' && !info.client_secret ? ' but no client_secret' : ''}, which the gateway does not use.`,
      );
    }
    const id = uuid();
    const row: McpOAuthClient = {
      id,
      organisation_id: i.organisation_id,
      mcp_integration_id: i.id,
      issuer,
      redirect_uri: client.redirectUri,
      client_id: info.client_id,
      client_secret_ciphertext: method !== 'none' && info.client_secret ? this.secrets.encrypt(info.client_secret, `${id}:client`) : '',
      token_endpoint_auth_method: method,
      secret_expires_at: info.client_secret_expires_at ? info.client_secret_expires_at * 1000 : null,
      created_at: this.now(),
    };
    // Two replicas registering at once: the first stored wins, and both use it.
    return found ? replaceMcpOAuthClient(this.db, found.id, row) : saveMcpOAuthClient(this.db, row);
  }

  /**
   * What discovery found for `i` (discovered once, then cached while what it read of `i` stays the same). An
   * integration as it was before a write (`i.updated_at` older than the current entry's: the revocation of
   * grants issued under settings the write replaced, while users connect under the new ones) is cached apart,
   * one per integration, so that it neither takes the current entry's place nor is discovered again for each of
   * the connections being revoked.
   */
  private server(i: McpIntegration): Promise<ServerInfo> {
    const current = this.entries.get(i.id);
    const entries = current && current.updatedAt > i.updated_at ? this.replaced : this.entries;
    const hit = entries.get(i.id);
    const inputs = discoveryInputs(i);
    if (hit && hit.inputs === inputs && hit.until > this.now()) return hit.value;
    const value = this.discover(i);
    if (entries.size >= SWEEP_AT) sweepExpired(entries, this.now());
    entries.set(i.id, { inputs, updatedAt: i.updated_at, until: this.now() + TTL_MS, value });
    value.catch(() => {
      if (entries.get(i.id)?.value === value) entries.delete(i.id);
    });
    return value;
  }

  private async discover(i: McpIntegration): Promise<ServerInfo> {
    const fetchFn = this.fetcher.fetchFor();
    const failed = (what: string, e?: unknown) =>
      new GatewayError(
        'provider_unreachable',
        `Upstream OAuth discovery of MCP integration '${i.slug}' failed: ${what}${e === undefined ? '' : `: ${reasonOf(e)}`}`,
      );
    let challenge: { resourceMetadataUrl?: URL; scope?: string } = {};
    try {
      const probe = await fetchFn(i.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'gateway-oauth-discovery', method: 'ping' }),
      });
      if (probe.status === 401) challenge = extractWWWAuthenticateParams(probe);
      await probe.body?.cancel().catch(() => undefined);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw failed('the upstream could not be reached', e);
    }
    const prm = await discoverOAuthProtectedResourceMetadata(
      i.url,
      challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {},
      fetchFn,
    ).catch((e: unknown) => {
      if (e instanceof GatewayError) throw e;
      return undefined;
    });
    if (prm && !checkResourceAllowed({ requestedResource: i.url, configuredResource: prm.resource }))
      throw failed(`its protected-resource metadata names the resource '${prm.resource}', not '${i.url}'`);
    const issuer = i.oauth.authorization_server ?? prm?.authorization_servers?.[0] ?? new URL('/', i.url).href;
    let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
    try {
      metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw failed(`the metadata of authorization server '${issuer}' could not be read`, e);
    }
    if (!metadata) throw failed(`authorization server '${issuer}' publishes no RFC 8414 or OpenID Connect metadata`);
    if (!(metadata.code_challenge_methods_supported ?? []).includes('S256'))
      throw failed(`authorization server '${issuer}' does not announce PKCE S256 (code_challenge_methods_supported)`);
    const scopes = i.oauth.scopes?.length ? i.oauth.scopes : challenge.scope ? challenge.scope.split(' ') : (prm?.scopes_supported ?? []);
    return { metadata, resource: prm?.resource ?? i.url, scope: scopes.join(' ') };
  }
}
