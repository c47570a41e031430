import type { FastifyInstance } from 'fastify';
import type { Store } from '../../infra/store/store.js';
import type { SharedState } from '../../infra/state/shared-state.js';
import type { Runtime, RuntimeSection } from '../../runtime/runtime.js';
import type { LeafInterceptor } from '../../routing/execute.js';
import type { TargetResolverDeps } from '../../routing/resolve-target.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import type { Clock } from '../../foundation/lib/clock.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import type { Settings } from './settings.js';
import type { SecretBox } from '../../foundation/lib/secret-box.js';
import type { GatewayDeps } from './deps.js';
import type { DataPlaneHook } from './data-plane-hook.js';

/** What a capability can use while it is being set up. */
export interface CoreDeps {
  settings: Settings;
  store: Store;
  state: SharedState;
  runtime: Runtime;
  http: HttpClient;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  targets: TargetResolverDeps;
  /** The gateway's secret box, for sections that open credentials sealed at rest as they load. */
  secrets: SecretBox;
}

/** What a capability adds to the gateway. Every part is optional. */
export interface CapabilityParts {
  /** Snapshot sections (its stored resources, compiled for the hot path). */
  sections?: RuntimeSection[];
  /** Request-level hooks (before routing / after the answer). */
  hooks?: DataPlaneHook[];
  /** Leaf interceptors (around each target's calls). */
  interceptors?: LeafInterceptor[];
  /** Its HTTP routes (admin and data plane). */
  routes?(app: FastifyInstance, deps: GatewayDeps): void;
  /** Path prefixes it serves without a gateway key (signed URLs, ...). */
  publicPaths?: string[];
  /**
   * Paths among `publicPaths` where a credential, when one is sent, is still authenticated (a bad one is
   * 401), so the handler can tell who calls (an OAuth callback checking its user); none is required.
   */
  optionalAuthPaths?: string[];
  /** Called after the app listens (background workers). */
  start?(deps: GatewayDeps): Promise<void> | void;
  /** Called on shutdown, after the server stopped accepting requests. */
  close?(): Promise<void> | void;
}

/**
 * A capability (cache, prompts, guardrails, limits, ...) plugs into the gateway through this one
 * interface; `server/capabilities.ts` lists them in order.
 */
export interface Capability {
  name: string;
  create(core: CoreDeps): CapabilityParts | Promise<CapabilityParts>;
}
