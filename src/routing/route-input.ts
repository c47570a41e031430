import type { ProviderEndpointKind } from '../providers/provider.js';
import type { LazyAbort } from '../foundation/lib/lazy-abort.js';

/** Provider coordinates the request's headers carry (decisions.md, "Request headers"). */
export interface HeaderTarget {
  provider?: string;
  apiKey?: string;
  customHost?: string;
  virtualKey?: string;
}

/** One data-plane request as the routing engine sees it. */
export interface RouteInput {
  endpoint: ProviderEndpointKind;
  /** The request body in the common schema. */
  body: Record<string, unknown>;
  /**
   * The client's JSON text of `body`, when `body` is the object parsed from that text and nothing has
   * replaced it: a provider that speaks the request's schema sends this text instead of serialising
   * `body` again (CallContext.sourceText). Absent otherwise.
   */
  sourceText?: string;
  stream: boolean;
  /** Incoming headers, lower-case names, gateway and hop-by-hop headers included (forwarding filters them). */
  headers: Record<string, string | string[] | undefined>;
  /** `x-gateway-metadata`. */
  metadata: Record<string, string>;
  /** URL path of the request (`url.pathname` in conditional queries). */
  pathname: string;
  organisationId: string;
  workspaceId: string;
  headerTarget: HeaderTarget;
  /** `x-gateway-forward-headers`. */
  forwardHeaderNames: readonly string[] | null;
  /** `x-gateway-request-timeout`. */
  requestTimeoutMs: number | null;
  /** `x-gateway-cache-force-refresh: true`. */
  cacheForceRefresh: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /**
   * The same abort as a lazy switch, when the route made one: the hot path checks it and listens to
   * it without creating `signal` (which stays available, created on first read).
   */
  clientAbort?: LazyAbort;
  /**
   * The data-plane request's `locals` (DataPlaneRequest.locals): leaf interceptors share per-request
   * state with request-level hooks through it and may set what the request log records (`hookResults`).
   */
  locals?: Record<string, unknown>;
}
