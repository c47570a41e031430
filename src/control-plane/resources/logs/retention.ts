import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';

/** The earliest time (ms) request-log rows are kept, or undefined when they are kept forever. */
export function retentionStart(deps: GatewayDeps): number | undefined {
  const days = deps.settings.logRetentionDays;
  return days > 0 ? deps.clock.now() - days * 86_400_000 : undefined;
}
