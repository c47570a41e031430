import type { Clock } from '../../foundation/lib/clock.js';
import type { SharedState } from '../../infra/state/shared-state.js';
import { MemoryUsageCounterStore } from './memory-usage-counter-store.js';
import { RedisUsageCounterStore } from './redis-usage-counter-store.js';
import type { UsageCounterStore } from './usage-counter-store.js';

const stores = new WeakMap<SharedState, UsageCounterStore>();

/**
 * The usage counters of a gateway: one store per shared state, so the enforcing hook and the
 * `/entities` routes of the same process see the same counters (in memory), or Redis (keys under
 * `<state.prefix>ul:`) when REDIS_URL is set.
 */
export function usageCountersFor(state: SharedState, clock: Clock): UsageCounterStore {
  let s = stores.get(state);
  if (!s) {
    s = state.redis ? new RedisUsageCounterStore(state.redis, `${state.prefix}ul:`, clock) : new MemoryUsageCounterStore(clock);
    stores.set(state, s);
  }
  return s;
}
