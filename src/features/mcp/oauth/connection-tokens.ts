import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type * as Oidc from 'openid-client';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import type { Principal } from '../../../kernel/principal.js';
import {
  deleteMcpConnectionHolding,
  getMcpConnection,
  replaceMcpConnectionTokens,
  type McpConnection,
} from '../../../infra/store/repos/mcp.js';
import type { McpIntegration } from '../../../infra/store/repos/mcp.js';
import type { McpOAuthClient } from '../../../infra/store/repos/mcp-oauth-clients.js';
import type { McpRoute } from '../mcp-section.js';
import type { ConnectFlow } from './connect-flow.js';
import { reasonOf, type UpstreamDiscovery } from './upstream-discovery.js';
import { REFRESH_AHEAD_MS } from './oauth-constants.js';

/** An access token expiring within this is refreshed before use. */

/** Longest a refresh may hold its cross-replica lock (and a replica wait for another's refresh). */
const LOCK_MS = 15_000;
const POLL_MS = 100;

/** Releases a Redis lock only when it still holds this owner's token. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** The error code (`error.code`, JSON-RPC `data.code`) of a call that needs the user to connect. */
export const CONNECTION_REQUIRED = 'mcp_connection_required';

/** Whether an error is the gateway's "connect first" refusal. */
export function isConnectionRequired(err: unknown): err is GatewayError {
  return err instanceof GatewayError && err.publicCode === CONNECTION_REQUIRED;
}

/** The authorization URL a connection-required refusal carries, when one could be made. */
export function authorizationUrlOf(err: GatewayError): string | undefined {
  const url = err.extra?.authorization_url;
  return typeof url === 'string' ? url : undefined;
}

/**
 * Each user's upstream access token for `auth_type: oauth` MCP servers: read from the user's stored
 * connection and opened from the secret box; refreshed when it expires within 60 s (and after an
 * upstream 401) with one refresh in flight per connection — in this process (single flight), across
 * replicas by a Redis lock when Redis is configured, and always by the store's conditional token
 * replacement (of two refreshes, one write wins; the other uses the winner's tokens). A refresh the
 * authorization server refuses (`invalid_grant`) removes the connection. Without a usable connection,
 * 403 `mcp_connection_required` carrying an authorization URL to complete.
 */
export class ConnectionTokens {
  private readonly inflight = new Map<string, Promise<McpConnection>>();

  constructor(
    private readonly deps: GatewayDeps,
    private readonly discovery: UpstreamDiscovery,
    private readonly flow: ConnectFlow,
  ) {}

  /**
   * Asks the authorization server to revoke a removed connection's tokens (RFC 7009), the refresh token
   * first (revoking it ends the grant at most servers), then the access token; answers how many it revoked.
   * Nothing when the server publishes no `revocation_endpoint`. A refusal of one token (an access token the
   * server cannot revoke, say a JWT: `unsupported_token_type`) does not keep the other from being revoked;
   * an unreachable server throws (the caller logs it: the connection is gone from the gateway either way).
   * `removedClients`: registrations deleted by the same write (the integration's OAuth settings replaced or
   * the integration deleted), among which the client the tokens were issued to is found.
   */
  async revokeUpstream(integration: McpIntegration, c: McpConnection, removedClients?: readonly McpOAuthClient[]): Promise<number> {
    const auth = await this.discovery.of(integration, {
      clientId: c.oauth_client_id,
      ...(removedClients ? { removed: removedClients } : {}),
    });
    if (!auth.config.serverMetadata().revocation_endpoint) return 0;
    const oidc = await import('openid-client');
    const tokens: Array<[string, 'refresh_token' | 'access_token']> = [];
    if (c.refresh_token_ciphertext)
      tokens.push([this.deps.secrets.decrypt(c.refresh_token_ciphertext, `${c.id}:refresh`), 'refresh_token']);
    tokens.push([this.deps.secrets.decrypt(c.access_token_ciphertext, `${c.id}:access`), 'access_token']);
    let revoked = 0;
    for (const [token, hint] of tokens) {
      try {
        await oidc.tokenRevocation(auth.config, token, { token_type_hint: hint });
        revoked++;
      } catch (e) {
        if (!(e instanceof oidc.ResponseBodyError))
          throw new GatewayError(
            'provider_unreachable',
            `The upstream's authorization server could not revoke the ${hint}: ${reasonOf(e)}`,
          );
        this.deps.logger.info(
          { server: integration.slug, hint, error: e.error },
          'MCP OAuth token revocation refused by the authorization server',
        );
      }
    }
    return revoked;
  }

  /** The access token to send upstream for `principal` (undefined for routes that are not `oauth`). */
  async bearer(route: McpRoute, principal: Principal, request: FastifyRequest): Promise<string | undefined> {
    if (route.integration.auth_type !== 'oauth') return undefined;
    const userId = this.userOf(route, principal);
    let c = await getMcpConnection(this.deps.store.db, route.integration.id, userId);
    if (!c) throw await this.required(route, userId, request, 'needs your OAuth connection to its upstream, and you have none');
    if (c.expires_at !== null && c.expires_at - this.deps.clock.now() <= REFRESH_AHEAD_MS) {
      if (c.refresh_token_ciphertext) c = await this.refresh(route, c, userId, request);
      else if (c.expires_at <= this.deps.clock.now())
        throw await this.required(route, userId, request, 'has an expired OAuth connection to its upstream (no refresh token)');
    }
    return this.access(c);
  }

  /**
   * After the upstream refused `used` with 401: the connection's newer token when another request
   * already refreshed it, else one refresh. Without a refresh token the connection is removed.
   */
  async renew(route: McpRoute, principal: Principal, request: FastifyRequest, used: string): Promise<string> {
    const userId = this.userOf(route, principal);
    const c = await getMcpConnection(this.deps.store.db, route.integration.id, userId);
    if (!c) throw await this.required(route, userId, request, 'needs your OAuth connection to its upstream, and you have none');
    if (this.access(c) !== used) return this.access(c);
    if (!c.refresh_token_ciphertext) {
      await deleteMcpConnectionHolding(this.deps.store.db, c.id, c.access_token_ciphertext);
      throw await this.required(route, userId, request, 'was refused by its upstream with your OAuth token');
    }
    return this.access(await this.refresh(route, c, userId, request));
  }

  /** The refusal asking `userId` to connect, with an authorization URL when one can be made. */
  async required(route: McpRoute, userId: string, request: FastifyRequest, why: string): Promise<GatewayError> {
    const message = `MCP server '${route.server.slug}' ${why}: complete the authorization_url (or POST /v1/mcp-servers/${route.server.id}/connect), then call again.`;
    try {
      const { authorization_url } = await this.flow.start(route, userId, request);
      return new GatewayError('forbidden', message, { publicCode: CONNECTION_REQUIRED, extra: { authorization_url } });
    } catch (err) {
      this.deps.logger.warn({ err: String(err), server: route.server.slug }, 'MCP OAuth authorization URL could not be made');
      return new GatewayError('forbidden', message, { publicCode: CONNECTION_REQUIRED });
    }
  }

  private userOf(route: McpRoute, principal: Principal): string {
    if (principal.userId !== null) return principal.userId;
    throw new GatewayError(
      'forbidden',
      `MCP server '${route.server.slug}' calls its upstream with each user's own OAuth token: call it with a user's key, session or JWT, not a service key.`,
      { publicCode: CONNECTION_REQUIRED },
    );
  }

  private access(c: McpConnection): string {
    return this.deps.secrets.decrypt(c.access_token_ciphertext, `${c.id}:access`);
  }

  /** One refresh of `c` in flight in this process; the others wait for it. */
  private refresh(route: McpRoute, c: McpConnection, userId: string, request: FastifyRequest): Promise<McpConnection> {
    const running = this.inflight.get(c.id);
    if (running) return running;
    const job = this.refreshAcrossReplicas(route, c, userId, request).finally(() => this.inflight.delete(c.id));
    this.inflight.set(c.id, job);
    return job;
  }

  /** With Redis: the refresh under a lock; a replica that does not get it waits for the holder's tokens in the store. */
  private async refreshAcrossReplicas(route: McpRoute, c: McpConnection, userId: string, request: FastifyRequest): Promise<McpConnection> {
    const redis = this.deps.state.redis;
    if (!redis) return this.refreshOnce(route, c, userId, request);
    const key = `${this.deps.state.prefix}mcp:refresh:${c.id}`;
    const owner = randomUUID();
    const deadline = Date.now() + LOCK_MS;
    while (Date.now() < deadline) {
      if ((await redis.set(key, owner, 'PX', LOCK_MS, 'NX')) === 'OK') {
        try {
          // Another replica may have refreshed between our read and the lock.
          const now = await getMcpConnection(this.deps.store.db, route.integration.id, userId);
          if (!now) throw await this.required(route, userId, request, 'lost its OAuth connection to its upstream');
          if (now.access_token_ciphertext !== c.access_token_ciphertext) return now;
          return await this.refreshOnce(route, c, userId, request);
        } finally {
          await redis.eval(RELEASE, 1, key, owner).catch(() => undefined);
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
      const now = await getMcpConnection(this.deps.store.db, route.integration.id, userId);
      if (!now) throw await this.required(route, userId, request, 'lost its OAuth connection to its upstream');
      if (now.access_token_ciphertext !== c.access_token_ciphertext) return now;
    }
    throw new GatewayError(
      'provider_unreachable',
      `The refresh of your OAuth token for MCP server '${route.server.slug}' did not finish within ${LOCK_MS / 1000} s.`,
    );
  }

  /**
   * One refresh grant, then the conditional replacement of the tokens read. A refusal (`invalid_grant`,
   * `invalid_token`…) removes the connection unless another refresh already replaced it.
   */
  private async refreshOnce(route: McpRoute, c: McpConnection, userId: string, request: FastifyRequest): Promise<McpConnection> {
    const oidc = await import('openid-client');
    const db = this.deps.store.db;
    const auth = await this.discovery.of(route.integration, { clientId: c.oauth_client_id });
    const refreshToken = this.deps.secrets.decrypt(c.refresh_token_ciphertext, `${c.id}:refresh`);
    let tokens: Oidc.TokenEndpointResponse;
    try {
      tokens = await oidc.refreshTokenGrant(auth.config, refreshToken, auth.resource ? { resource: auth.resource } : undefined);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      if (e instanceof oidc.ResponseBodyError) {
        await deleteMcpConnectionHolding(db, c.id, c.access_token_ciphertext);
        const after = await getMcpConnection(db, route.integration.id, userId);
        if (after && after.access_token_ciphertext !== c.access_token_ciphertext) return after;
        this.deps.logger.info({ server: route.server.slug, error: e.error }, 'MCP OAuth refresh refused: connection removed');
        throw await this.required(
          route,
          userId,
          request,
          `could not refresh your OAuth connection (the authorization server answered ${e.error})`,
        );
      }
      throw new GatewayError(
        'provider_unreachable',
        `The refresh of your OAuth token for MCP server '${route.server.slug}' failed: ${reasonOf(e)}`,
      );
    }
    const now = this.deps.clock.now();
    const next = {
      access_token_ciphertext: this.deps.secrets.encrypt(tokens.access_token, `${c.id}:access`),
      refresh_token_ciphertext: tokens.refresh_token
        ? this.deps.secrets.encrypt(tokens.refresh_token, `${c.id}:refresh`)
        : c.refresh_token_ciphertext,
      expires_at: typeof tokens.expires_in === 'number' ? now + tokens.expires_in * 1000 : null,
      scopes: tokens.scope ?? c.scopes,
      updated_at: now,
    };
    if (await replaceMcpConnectionTokens(db, c.id, c.access_token_ciphertext, next)) return { ...c, ...next };
    const winner = await getMcpConnection(db, route.integration.id, userId);
    if (!winner) throw await this.required(route, userId, request, 'lost its OAuth connection to its upstream');
    return winner;
  }
}
