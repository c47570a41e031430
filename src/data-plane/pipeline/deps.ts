import type { Store } from '../../infra/store/store.js';
import type { SharedState } from '../../infra/state/shared-state.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { Router } from '../../routing/execute.js';
import type { TargetResolverDeps } from '../../routing/resolve-target.js';
import type { InlineConfigCache } from '../../routing/config-cache.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import type { Clock } from '../../foundation/lib/clock.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import type { RequestLogWriter } from '../../infra/observability/request-log.js';
import type { Settings } from './settings.js';
import type { DataPlaneHook } from './data-plane-hook.js';
import type { SecretBox } from '../../foundation/lib/secret-box.js';
import type { SecretResolver } from '../../infra/secrets/secret-resolver.js';
import type { Tracing } from '../../infra/observability/tracing.js';

/** Everything the HTTP layer needs, built once by the composition root (`create-gateway.ts`). */
export interface GatewayDeps {
  settings: Settings;
  store: Store;
  state: SharedState;
  runtime: Runtime;
  router: Router;
  /** Provider and virtual-key lookup (the same the router uses). */
  targets: TargetResolverDeps;
  configs: InlineConfigCache;
  http: HttpClient;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  logs: RequestLogWriter;
  /** Request-level capabilities (rate limits, prompts, ...), run in order around routing. */
  hooks: DataPlaneHook[];
  /** Set when shutdown began: new requests get 503 `service_unavailable`. */
  lifecycle: Lifecycle;
  /** Path prefixes served without a gateway key (besides /health and /metrics). */
  publicPaths: string[];
  /** Public path prefixes where a credential sent anyway is authenticated (`Capability.optionalAuthPaths`). */
  optionalAuthPaths?: string[];
  /** Seals secrets stored for reading back (pending key values, credentials). */
  secrets: SecretBox;
  /** OpenTelemetry, loaded only when an OTLP endpoint is configured (else undefined: no spans). */
  tracing?: Tracing;
  /** Records that a key authenticated a request (no I/O; `last_used_at` is written later in batches). */
  keyUsage: { touch(keyId: string): void };
  /** Resolves secret references against their managers (cache, one fetch in flight, stale-if-error): `infra/secrets/secret-resolver.ts`. */
  secretResolver: SecretResolver;
}

/** Where the process stands in its shutdown: `draining` from SIGTERM (readiness fails), `closing` once it stops accepting. */
export interface Lifecycle {
  /** SIGTERM/SIGINT received: `/health/ready` answers 503 `draining`, requests are still served. */
  draining?: boolean;
  /** The server no longer accepts work: new requests get 503 and `Connection: close`. */
  closing: boolean;
}
