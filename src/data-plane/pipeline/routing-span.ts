import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { DataPlaneRequest } from './data-plane-hook.js';
import type { RouteTrace } from '../../routing/outcome.js';
import { routingSpanOf } from '../../infra/observability/tracing.js';

/** Ends the request's routing span (when traced) with the target that answered, the attempts and the failure if any. */
export function endRoutingSpan(dp: DataPlaneRequest, trace: RouteTrace, error?: GatewayError): void {
  const span = routingSpanOf(dp.locals);
  if (!span) return;
  span.set({
    'gateway.target.path': trace.path,
    'gen_ai.provider.name': trace.provider,
    'gateway.attempts': trace.attempts.length,
    'gateway.retries': trace.retries,
  });
  if (error) span.fail(error.publicCode ?? error.code, error.message);
  span.end();
}
