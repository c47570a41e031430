import type { ProviderEndpointKind } from '../../providers/provider.js';
import type { CompiledConfig } from '../../routing/compiled-config.js';
import type { Outcome, RouteTrace } from '../../routing/outcome.js';
import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { RequestContext } from './request-context.js';
import type { Usage } from '../../foundation/spec/chat.js';
import type { HeaderTarget } from '../../routing/route-input.js';
import type { RequestPrice } from '../../infra/pricing/price-usage.js';

/** What a data-plane request calls: a provider endpoint, or an agent (`/v1/agents/{slug}`). */
export type DataPlaneEndpoint = ProviderEndpointKind | 'agents';

/** A data-plane request on its way through the request-level hooks. */
export interface DataPlaneRequest {
  ctx: RequestContext;
  endpoint: DataPlaneEndpoint;
  /** The request body; a hook may replace it (prompt rendering) before routing. */
  body: Record<string, unknown>;
  stream: boolean;
  metadata: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  config: CompiledConfig | null;
  /**
   * Provider coordinates from the request headers (`x-gateway-provider`, `x-gateway-virtual-key`, ...).
   * A hook may fill what the request left empty (a prompt's saved credential); leaves use them only
   * when their config names no provider.
   */
  headerTarget?: HeaderTarget;
  /** Headers a hook wants on the answer (rate-limit headers, ...). */
  responseHeaders: Record<string, string>;
  /** Free slots for hooks to carry state from `before` to `after`. */
  locals: Record<string, unknown>;
}

/** How a data-plane request ended (after its last byte was sent). */
export interface CompletedRequest {
  status: number;
  outcome?: Outcome;
  error?: GatewayError;
  trace: RouteTrace;
  usage?: Usage;
  latencyMs: number;
  /** The answer's body for the request log (read only when the workspace logs bodies): a JSON answer's value, or `{chunks}` of a stream. */
  readonly responseBody?: unknown;
  /** The request's price once computed (`priceOfRequest` keeps it here for its other readers). */
  price?: RequestPrice;
}

/**
 * A request-level capability. `before` runs after authentication and config resolution, before
 * routing; it may throw a GatewayError (429, 446, ...) or rewrite `body`. `after` runs once the
 * answer is complete, off the response path; it must not throw.
 */
export interface DataPlaneHook {
  name: string;
  before?(req: DataPlaneRequest): void | Promise<void>;
  after?(req: DataPlaneRequest, done: CompletedRequest): void;
}
