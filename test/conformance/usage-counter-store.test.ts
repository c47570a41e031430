import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { FakeClock } from '../../src/foundation/lib/clock.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import type { UsageCounterStore, UsageReservation } from '../../src/features/limits/usage-counter-store.js';
import { MemoryUsageCounterStore } from '../../src/features/limits/memory-usage-counter-store.js';
import { RedisUsageCounterStore } from '../../src/features/limits/redis-usage-counter-store.js';
import { REDIS_URL } from '../helpers/gateway.js';

const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const T0 = Date.UTC(2026, 0, 7, 10);
const DAY = 86_400_000;

const KINDS: Array<{ name: string; make(clock: FakeClock): UsageCounterStore }> = [
  { name: 'memory', make: (clock) => new MemoryUsageCounterStore(clock) },
  { name: 'redis', make: (clock) => new RedisUsageCounterStore(redis, `gwtest:${randomId(8)}:ul:`, clock) },
];

const entry = (over: Partial<UsageReservation> = {}): UsageReservation => ({
  policyId: 'p1',
  windowStart: T0,
  resetAt: T0 + DAY,
  group: '{}',
  limit: 3,
  amount: 1,
  strict: true,
  ...over,
});

describe.each(KINDS)('usage counter store conformance: $name', ({ make }) => {
  let store: UsageCounterStore;
  beforeEach(() => {
    store = make(new FakeClock(T0));
  });

  it('requests: admits exactly the limit, concurrently too', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => store.reserve([entry({ limit: 7 })])));
    expect(results.filter((r) => r.admitted)).toHaveLength(7);
    expect(await store.groups('p1', T0)).toEqual([{ group: '{}', used: 7 }]);
  });

  it('tokens and cost: admits while used < limit, then settles the real amount', async () => {
    const e = entry({ limit: 100, amount: 30, strict: false });
    expect(await store.reserve([e])).toEqual({ admitted: true, used: [30] });
    expect(await store.settle([{ ...e, delta: 50 - 30, alertAt: null }])).toEqual([{ used: 50, alert: false }]);
    expect((await store.reserve([e])).admitted).toBe(true);
    await store.settle([{ ...e, delta: 60 - 30, alertAt: null }]);
    expect(await store.reserve([e])).toEqual({ admitted: false, used: [110] });
  });

  it('fractional amounts (dollars) add up', async () => {
    const e = entry({ limit: 1, amount: 0, strict: false });
    await store.reserve([e]);
    await store.settle([{ ...e, delta: 0.25, alertAt: null }]);
    await store.settle([{ ...e, delta: 0.5, alertAt: null }]);
    expect((await store.groups('p1', T0))[0]!.used).toBeCloseTo(0.75, 9);
  });

  it('refuses when any entry fails and adds nothing to the others', async () => {
    const a = entry({ policyId: 'a', limit: 5 });
    const b = entry({ policyId: 'b', limit: 1 });
    expect((await store.reserve([a, b])).admitted).toBe(true);
    expect(await store.reserve([a, b])).toEqual({ admitted: false, used: [1, 1] });
    expect(await store.groups('a', T0)).toEqual([{ group: '{}', used: 1 }]);
  });

  it('a new window start is a new counter; groups are separate', async () => {
    await store.reserve([entry({ limit: 1 })]);
    expect((await store.reserve([entry({ limit: 1 })])).admitted).toBe(false);
    expect((await store.reserve([entry({ limit: 1, group: '{"api_key":"k2"}' })])).admitted).toBe(true);
    expect((await store.reserve([entry({ limit: 1, windowStart: T0 + DAY, resetAt: T0 + 2 * DAY })])).admitted).toBe(true);
  });

  it('claims the alert once per window and group, again after a reset', async () => {
    const e = entry({ limit: 10, amount: 0, strict: false });
    const s = { ...e, delta: 4, alertAt: 8 };
    expect(await store.settle([s])).toEqual([{ used: 4, alert: false }]);
    expect(await store.settle([s])).toEqual([{ used: 8, alert: true }]);
    expect(await store.settle([s])).toEqual([{ used: 12, alert: false }]);
    await store.reset('p1', T0, '{}');
    expect(await store.groups('p1', T0)).toEqual([]);
    expect((await store.reserve([e])).admitted).toBe(true);
    await store.settle([s]);
    expect(await store.settle([s])).toEqual([{ used: 8, alert: true }]);
  });

  it('a window that never resets keeps its counter', async () => {
    const e = entry({ resetAt: null, limit: 2 });
    await store.reserve([e]);
    await store.reserve([e]);
    expect((await store.reserve([e])).admitted).toBe(false);
  });
});
