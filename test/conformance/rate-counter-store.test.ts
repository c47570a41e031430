import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { FakeClock } from '../../src/foundation/lib/clock.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import type { RateCounterStore } from '../../src/features/limits/counter-store.js';
import { windowOf } from '../../src/features/limits/counter-store.js';
import { MemoryCounterStore } from '../../src/features/limits/memory-counter-store.js';
import { RedisCounterStore } from '../../src/features/limits/redis-counter-store.js';
import { WINDOW_MS } from '../../src/features/limits/policy-keys.js';
import { REDIS_URL } from '../helpers/gateway.js';

const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const KINDS: Array<{ name: string; make(clock: FakeClock): RateCounterStore }> = [
  { name: 'memory', make: (clock) => new MemoryCounterStore(clock) },
  { name: 'redis', make: (clock) => new RedisCounterStore(redis, `gwtest:${randomId(8)}:rl:`, clock) },
];

/** Wednesday 2026-01-07 10:20:30.250 UTC: inside every kind of window, away from its edges. */
const T0 = Date.UTC(2026, 0, 7, 10, 20, 30, 250);

describe('windowOf', () => {
  it('aligns minutes, hours and days to UTC and weeks to Monday 00:00 UTC', () => {
    expect(windowOf(T0, WINDOW_MS.rpm)).toEqual({ start: Date.UTC(2026, 0, 7, 10, 20), resetAt: Date.UTC(2026, 0, 7, 10, 21) });
    expect(windowOf(T0, WINDOW_MS.rph)).toEqual({ start: Date.UTC(2026, 0, 7, 10), resetAt: Date.UTC(2026, 0, 7, 11) });
    expect(windowOf(T0, WINDOW_MS.rpd)).toEqual({ start: Date.UTC(2026, 0, 7), resetAt: Date.UTC(2026, 0, 8) });
    expect(windowOf(T0, WINDOW_MS.rpw)).toEqual({ start: Date.UTC(2026, 0, 5), resetAt: Date.UTC(2026, 0, 12) });
    expect(new Date(windowOf(T0, WINDOW_MS.rpw).start).getUTCDay()).toBe(1);
    expect(windowOf(Date.UTC(2026, 0, 12), WINDOW_MS.rpw).start).toBe(Date.UTC(2026, 0, 12));
  });
});

describe.each(KINDS)('rate counter store conformance: $name', ({ make }) => {
  let clock: FakeClock;
  let store: RateCounterStore;
  beforeEach(() => {
    clock = new FakeClock(T0);
    store = make(clock);
  });

  describe.each(Object.entries(WINDOW_MS))('unit %s', (unit, windowMs) => {
    it('admits exactly the limit in a window, refuses until the window ends, then starts again', async () => {
      const entry = { key: `p:${unit}`, windowMs, limit: 3, cost: 1 };
      const { resetAt } = windowOf(T0, windowMs);
      for (let i = 1; i <= 3; i++) expect(await store.admit([entry])).toEqual({ admitted: true, readings: [{ count: i, resetAt }] });
      expect(await store.admit([entry])).toEqual({ admitted: false, readings: [{ count: 3, resetAt }] });
      clock.set(resetAt - 1);
      expect((await store.admit([entry])).admitted).toBe(false);
      clock.set(resetAt);
      expect(await store.admit([entry])).toEqual({ admitted: true, readings: [{ count: 1, resetAt: resetAt + windowMs }] });
    });
  });

  it('a refused request counts nowhere: entries are checked together and incremented only when all pass', async () => {
    const a = { key: 'a', windowMs: WINDOW_MS.rpm, limit: 5, cost: 1 };
    const b = { key: 'b', windowMs: WINDOW_MS.rph, limit: 1, cost: 1 };
    expect((await store.admit([a, b])).admitted).toBe(true);
    const refused = await store.admit([a, b]);
    expect(refused.admitted).toBe(false);
    expect(refused.readings.map((r) => r.count)).toEqual([1, 1]);
    for (let i = 2; i <= 5; i++) expect((await store.admit([a])).readings[0]!.count).toBe(i);
    expect((await store.admit([a])).admitted).toBe(false);
  });

  it('cost 0 checks that the budget is not spent; add() counts without refusing', async () => {
    const tokens = { key: 'tok', windowMs: WINDOW_MS.rpm, limit: 100, cost: 0 };
    expect(await store.admit([tokens])).toEqual({ admitted: true, readings: [{ count: 0, resetAt: windowOf(T0, WINDOW_MS.rpm).resetAt }] });
    await store.add([{ key: 'tok', windowMs: WINDOW_MS.rpm, amount: 60 }]);
    expect((await store.admit([tokens])).readings[0]!.count).toBe(60);
    await store.add([
      { key: 'tok', windowMs: WINDOW_MS.rpm, amount: 70 },
      { key: 'other', windowMs: WINDOW_MS.rpm, amount: 0 },
    ]);
    expect(await store.admit([tokens])).toMatchObject({ admitted: false, readings: [{ count: 130 }] });
    clock.advance(WINDOW_MS.rpm);
    expect(await store.admit([tokens])).toMatchObject({ admitted: true, readings: [{ count: 0 }] });
  });

  it('a limit of 0 refuses everything; a cost above 1 is checked whole', async () => {
    expect((await store.admit([{ key: 'z', windowMs: WINDOW_MS.rpm, limit: 0, cost: 1 }])).admitted).toBe(false);
    expect((await store.admit([{ key: 'z2', windowMs: WINDOW_MS.rpm, limit: 0, cost: 0 }])).admitted).toBe(false);
    expect((await store.admit([{ key: 'c', windowMs: WINDOW_MS.rpm, limit: 5, cost: 3 }])).admitted).toBe(true);
    expect((await store.admit([{ key: 'c', windowMs: WINDOW_MS.rpm, limit: 5, cost: 3 }])).admitted).toBe(false);
    expect((await store.admit([{ key: 'c', windowMs: WINDOW_MS.rpm, limit: 5, cost: 2 }])).readings[0]!.count).toBe(5);
  });

  it('keys and windows are independent; no entries admits', async () => {
    expect(await store.admit([])).toEqual({ admitted: true, readings: [] });
    const m = { key: 'k', windowMs: WINDOW_MS.rpm, limit: 1, cost: 1 };
    const h = { key: 'k', windowMs: WINDOW_MS.rph, limit: 1, cost: 1 };
    const other = { key: 'k2', windowMs: WINDOW_MS.rpm, limit: 1, cost: 1 };
    expect((await store.admit([m])).admitted).toBe(true);
    expect((await store.admit([h])).admitted).toBe(true);
    expect((await store.admit([other])).admitted).toBe(true);
    expect((await store.admit([m])).admitted).toBe(false);
  });

  it('200 concurrent admits against a limit of 50 admit exactly 50', async () => {
    const entry = { key: 'burst', windowMs: WINDOW_MS.rpm, limit: 50, cost: 1 };
    const results = await Promise.all(Array.from({ length: 200 }, () => store.admit([entry])));
    expect(results.filter((r) => r.admitted)).toHaveLength(50);
  });
});

describe('redis counter store across clients', () => {
  it('two stores (two replicas) on the same prefix share one limit', async () => {
    const prefix = `gwtest:${randomId(8)}:rl:`;
    const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const clock = new FakeClock(T0);
      const a = new RedisCounterStore(redis, prefix, clock);
      const b = new RedisCounterStore(other, prefix, clock);
      const entry = { key: 'shared', windowMs: WINDOW_MS.rpm, limit: 50, cost: 1 };
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).admit([entry])));
      expect(results.filter((r) => r.admitted)).toHaveLength(50);
      expect(await redis.pttl(`${prefix}shared:${windowOf(T0, WINDOW_MS.rpm).start}`)).toBeGreaterThan(0);
    } finally {
      other.disconnect();
    }
  });
});
