import type { Capability } from '../../data-plane/pipeline/capability.js';
import type { RateCounterStore } from './counter-store.js';
import type { StreamTextTally } from './estimate-tokens.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { RedisCounterStore } from './redis-counter-store.js';
import { createRateLimitHook } from './rate-limit-hook.js';
import { rateLimitSection } from './rate-limit-section.js';
import { createStreamTallyInterceptor } from './stream-tally-interceptor.js';
import { usageCountersFor } from './usage-counters.js';
import { createUsageAlerts } from './usage-alerts.js';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';
import { createUsageLimitHook } from './usage-limit-hook.js';
import { usageLimitSection } from './usage-limit-section.js';

/** Options of the limits capability (tests observe token accounting through `onCounted`). */
export interface LimitsOptions {
  /** Called with the tokens added after each finished request that matched a tokens policy. */
  onCounted?: (tokens: number) => void;
  /** Called once a finished request's usage-limit reservations are settled. */
  onSettled?: () => void;
}

/**
 * Rate-limit policies (issue 8) and usage-limit policies (issue 19, docs/usage-limits.md, their counters
 * under `<state.prefix>ul:`): a runtime section of the active policies (their admin resource is
 * `control-plane/resources/rate-limit-policies`), the enforcing data-plane hook, and a leaf interceptor that lets the hook see
 * streamed answers. Counters live in memory, or in Redis (`state.redis`, keys under
 * `<state.prefix>rl:`) when REDIS_URL is set, shared by every replica. See docs/limits.md.
 */
export function createLimitsCapability(opts: LimitsOptions = {}): Capability {
  return {
    name: 'limits',
    create(core) {
      const counters: RateCounterStore = core.state.redis
        ? new RedisCounterStore(core.state.redis, `${core.state.prefix}rl:`, core.clock)
        : new MemoryCounterStore(core.clock);
      const tallies = new WeakMap<object, StreamTextTally>();
      const hook = createRateLimitHook({
        runtime: core.runtime,
        counters,
        clock: core.clock,
        logger: core.logger,
        metrics: core.metrics,
        tallies,
        onCounted: opts.onCounted,
      });
      const usage = createUsageLimitHook({
        runtime: core.runtime,
        counters: usageCountersFor(core.state, core.clock),
        alert: createUsageAlerts({
          store: core.store,
          http: core.http,
          guard: new CustomHostGuard(core.http.outbound),
          logger: core.logger,
          webhookUrl: core.settings.alertWebhookUrl,
        }),
        clock: core.clock,
        logger: core.logger,
        metrics: core.metrics,
        tallies,
        onSettled: opts.onSettled,
      });
      return {
        sections: [rateLimitSection, usageLimitSection],
        // Rate limits first: their stream tally is shared with the usage hook, which settles from the same figures.
        hooks: [hook, usage],
        interceptors: [createStreamTallyInterceptor(tallies)],
        close: () => counters.close(),
      };
    },
  };
}

/** The limits capability as the gateway registers it. */
export const limitsCapability: Capability = createLimitsCapability();
