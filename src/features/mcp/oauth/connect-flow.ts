import type { FastifyRequest } from 'fastify';
import type * as Oidc from 'openid-client';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { getMcpIntegration, getMcpServer, saveMcpConnection, type McpConnection } from '../../../infra/store/repos/mcp.js';
import { insertMcpOAuthState, takeMcpOAuthState } from '../../../infra/store/repos/mcp-oauth-states.js';
import { insertAuditEntry } from '../../../infra/store/repos/audit-logs.js';
import type { McpRoute } from '../mcp-section.js';
import { reasonOf, type UpstreamDiscovery } from './upstream-discovery.js';
import { MCP_OAUTH_CALLBACK_PATH } from './oauth-constants.js';

/** Where the upstream's authorization server sends the user back (register it as the client's redirect URI). */

/** How long an authorization URL may be completed. */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;

/** The callback's query (the authorization response). */
export interface CallbackQuery {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
  [name: string]: unknown;
}

/** The sealing context of a pending authorization's PKCE verifier. */
function verifierContext(stateHash: string): string {
  return `mcp-oauth-state:${stateHash}`;
}

/** A `400 invalid_request` about the callback. */
function badCallback(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/**
 * The authorization-code flow with PKCE S256 to an MCP upstream's authorization server (openid-client):
 * `start` hands out an authorization URL whose `state` is stored server-side (hashed), bound to the
 * user and the MCP server, expiring after ten minutes; `finish` takes that state once (any replica),
 * exchanges the code with the PKCE verifier and the RFC 8707 resource, and stores the user's tokens
 * sealed, replacing a previous connection.
 */
export class ConnectFlow {
  constructor(
    private readonly deps: GatewayDeps,
    private readonly discovery: UpstreamDiscovery,
  ) {}

  /** The redirect URI of this gateway: `GATEWAY_PUBLIC_URL`, else as the request reached it. */
  callbackUrl(request: FastifyRequest): string {
    return `${this.deps.settings.publicUrl ?? `${request.protocol}://${request.host}`}${MCP_OAUTH_CALLBACK_PATH}`;
  }

  /** An authorization URL for `userId` to connect to the upstream of `route`, and when it stops working. */
  async start(route: McpRoute, userId: string, request: FastifyRequest): Promise<{ authorization_url: string; expires_at: number }> {
    const oidc = await import('openid-client');
    const redirectUri = this.callbackUrl(request);
    // Without a configured client id, the first connect through this redirect URI registers the gateway (RFC 7591).
    const auth = await this.discovery.of(route.integration, { redirectUri, register: true });
    const state = oidc.randomState();
    const verifier = oidc.randomPKCECodeVerifier();
    const stateHash = sha256Hex(state);
    const now = this.deps.clock.now();
    const expiresAt = now + AUTHORIZATION_TTL_MS;
    await insertMcpOAuthState(
      this.deps.store.db,
      {
        state_hash: stateHash,
        organisation_id: route.server.organisation_id,
        workspace_id: route.server.workspace_id,
        server_id: route.server.id,
        mcp_integration_id: route.integration.id,
        user_id: userId,
        code_verifier_ciphertext: this.deps.secrets.encrypt(verifier, verifierContext(stateHash)),
        redirect_uri: redirectUri,
        resource: auth.resource,
        created_at: now,
        expires_at: expiresAt,
      },
      now,
    );
    const params: Record<string, string> = {
      redirect_uri: redirectUri,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: auth.resource,
    };
    if (auth.scope) params.scope = auth.scope;
    return { authorization_url: oidc.buildAuthorizationUrl(auth.config, params).href, expires_at: expiresAt };
  }

  /**
   * Finishes a connection from the authorization server's redirect. 400 `invalid_request` for a missing,
   * unknown, expired or already used `state`, for a caller who is not the user the state was issued to
   * (`callerUserId`, when the callback carried a credential), for an authorization error, and for a code
   * the server refuses; 409 when the server's integration changed since; 502 when the server is unreachable.
   * The connection and its audit row (`mcp_server.connect`, actor the user) are written in one transaction.
   */
  async finish(
    request: FastifyRequest,
    query: CallbackQuery,
    callerUserId: string | null | undefined,
  ): Promise<{ connection: McpConnection; serverId: string }> {
    const oidc = await import('openid-client');
    if (!query.state) throw badCallback('The MCP OAuth callback carries no state.', 'state');
    const now = this.deps.clock.now();
    const stateHash = sha256Hex(query.state);
    const pending = await takeMcpOAuthState(this.deps.store.db, stateHash, now);
    if (!pending)
      throw badCallback(
        'Unknown, expired or already used state: ask for a new authorization URL (POST /v1/mcp-servers/{id}/connect).',
        'state',
      );
    if (callerUserId !== undefined && callerUserId !== pending.user_id)
      throw badCallback(
        'This authorization was started by another user: the callback must be completed by the user who asked for it.',
        'state',
      );
    if (query.error)
      throw badCallback(
        `The upstream's authorization server refused the authorization: ${String(query.error).slice(0, 100)}${query.error_description ? ` (${String(query.error_description).slice(0, 300)})` : ''}.`,
        'error',
      );
    if (!query.code) throw badCallback('The MCP OAuth callback carries no code.', 'code');
    const scope = { organisationId: pending.organisation_id, workspaceIds: [pending.workspace_id], organisationWide: false };
    const server = await getMcpServer(this.deps.store.db, scope, pending.server_id);
    const integration = server && (await getMcpIntegration(this.deps.store.db, scope, server.mcp_integration_id));
    if (!server || !integration || integration.id !== pending.mcp_integration_id || integration.auth_type !== 'oauth') {
      throw new GatewayError('conflict', 'The MCP server or its integration changed since this authorization began: connect again.');
    }
    const auth = await this.discovery.of(integration, { redirectUri: pending.redirect_uri });
    const current = new URL(pending.redirect_uri);
    for (const [k, v] of Object.entries(query)) if (typeof v === 'string') current.searchParams.set(k, v);
    const verifier = this.deps.secrets.decrypt(pending.code_verifier_ciphertext, verifierContext(stateHash));
    let tokens: Oidc.TokenEndpointResponse;
    try {
      tokens = await oidc.authorizationCodeGrant(
        auth.config,
        current,
        { pkceCodeVerifier: verifier, expectedState: query.state },
        pending.resource ? { resource: pending.resource } : undefined,
      );
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      if (e instanceof oidc.ResponseBodyError || e instanceof oidc.AuthorizationResponseError)
        throw badCallback(`The upstream's authorization server refused the code: ${reasonOf(e)}`, 'code');
      throw new GatewayError('provider_unreachable', `The upstream's authorization server could not exchange the code: ${reasonOf(e)}`);
    }
    const id = uuid();
    const connection: McpConnection = {
      id,
      organisation_id: pending.organisation_id,
      mcp_integration_id: integration.id,
      user_id: pending.user_id,
      access_token_ciphertext: this.deps.secrets.encrypt(tokens.access_token, `${id}:access`),
      refresh_token_ciphertext: tokens.refresh_token ? this.deps.secrets.encrypt(tokens.refresh_token, `${id}:refresh`) : '',
      expires_at: typeof tokens.expires_in === 'number' ? now + tokens.expires_in * 1000 : null,
      scopes: tokens.scope ?? auth.scope,
      connected_at: now,
      updated_at: now,
      oauth_client_id: auth.registeredClientId,
    };
    await this.deps.store.db.transaction().execute(async (trx) => {
      await saveMcpConnection(trx, connection);
      await insertAuditEntry(trx, {
        id: uuid(),
        created_at: now,
        organisation_id: pending.organisation_id,
        workspace_id: server.workspace_id,
        actor_type: 'user',
        actor_id: pending.user_id,
        action: 'mcp_server.connect',
        resource_type: 'mcp_server',
        resource_id: server.id,
        request_id: request.id,
        client_ip: request.ip ?? null,
        details: { user_id: pending.user_id, scopes: connection.scopes },
      });
    });
    return { connection, serverId: server.id };
  }
}
