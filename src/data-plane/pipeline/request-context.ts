import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { AuthKey } from '../../runtime/snapshot.js';
import type { LiveSession } from '../../runtime/sessions-section.js';
import type { GatewaySpan } from '../../infra/observability/tracing.js';

/** The header a gateway key was read from (`authorization` and `x-api-key` are then removed from the request). */
export type CredentialHeader = 'x-gateway-api-key' | 'authorization' | 'x-api-key';

/** Per-request facts every route reads: ids, the authenticated key, the effective workspace. */
export interface RequestContext {
  requestId: string;
  traceId: string;
  startedAt: number;
  key?: AuthKey;
  /** The console session the request authenticated with (its `key` then holds the session's facts). */
  session?: LiveSession;
  /** Set when the gateway key came from `Authorization` or `x-api-key` instead of `x-gateway-api-key`. */
  credentialHeader?: CredentialHeader;
  /** The key's organisation. */
  organisationId: string;
  /** The key's workspace, or its organisation's default workspace for organisation keys. */
  workspaceId: string;
  /** The request's SERVER span when tracing is on (the tracing hook: features add child spans to it). */
  span?: GatewaySpan;
  /** The request body's JSON text as received (the JSON parser sets it, unless the text starts with a byte order mark): a data-plane route may forward it as it is. */
  bodyText?: string;
}

/**
 * The context of an HTTP request. It starts with no tenant: the organisation and workspace are set only
 * by authentication, from the key (never from a gateway-wide default). Reading either before that (a
 * public route, a bug) throws 401 `invalid_api_key` instead of acting in some other tenant's workspace;
 * an organisation key whose organisation has no default workspace gets 403 `forbidden` where one is needed.
 */
export class HttpRequestContext implements RequestContext {
  key?: AuthKey;
  session?: LiveSession;
  credentialHeader?: CredentialHeader;
  span?: GatewaySpan;
  bodyText?: string;
  private organisation?: string;
  private workspace?: string;

  constructor(
    readonly requestId: string,
    readonly traceId: string,
    readonly startedAt: number,
  ) {}

  get organisationId(): string {
    if (this.organisation === undefined) throw new GatewayError('invalid_api_key');
    return this.organisation;
  }

  set organisationId(id: string) {
    this.organisation = id;
  }

  get workspaceId(): string {
    if (this.workspace !== undefined) return this.workspace;
    if (this.key) throw new GatewayError('forbidden', "This key's organisation has no default workspace.");
    throw new GatewayError('invalid_api_key');
  }

  set workspaceId(id: string) {
    this.workspace = id;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    gw: RequestContext;
  }
}
