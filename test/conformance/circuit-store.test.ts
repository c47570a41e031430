import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { CircuitStore } from '../../src/infra/state/circuit-store.js';
import { MemoryCircuitStore } from '../../src/infra/state/memory-circuit-store.js';
import { RedisCircuitStore } from '../../src/infra/state/redis-circuit-store.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import { REDIS_URL } from '../helpers/gateway.js';

const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const KINDS: Array<{ name: string; make(): CircuitStore }> = [
  { name: 'memory', make: () => new MemoryCircuitStore() },
  { name: 'redis', make: () => new RedisCircuitStore(redis, `gwtest:${randomId(8)}:cb:`) },
];

describe.each(KINDS)('circuit store conformance: $name', ({ make }) => {
  let store: CircuitStore;
  beforeEach(() => {
    store = make();
  });

  it('starts closed and opens at the threshold of consecutive failures', async () => {
    expect(await store.get('t')).toEqual({ failures: 0, openedAt: null });
    expect((await store.recordFailure('t', 3, 1000, 60_000)).openedAt).toBeNull();
    expect((await store.recordFailure('t', 3, 1001, 60_000)).openedAt).toBeNull();
    const s = await store.recordFailure('t', 3, 1002, 60_000);
    expect(s).toEqual({ failures: 3, openedAt: 1002 });
    expect(await store.get('t')).toEqual({ failures: 3, openedAt: 1002 });
  });

  it('a success closes the circuit and clears failures', async () => {
    await store.recordFailure('t', 1, 1000, 60_000);
    await store.recordSuccess('t');
    expect(await store.get('t')).toEqual({ failures: 0, openedAt: null });
  });

  it('grants exactly one half-open trial per cooldown window', async () => {
    await store.recordFailure('t', 1, 1000, 60_000);
    expect(await store.claimTrial('t', 1000 + 29_999, 30_000)).toBe(false);
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimTrial('t', 1000 + 30_000, 30_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.claimTrial('t', 1000 + 59_999, 30_000)).toBe(false);
    expect(await store.claimTrial('t', 1000 + 60_001, 30_000)).toBe(true);
  });

  it('a failed trial reopens the circuit from that time', async () => {
    await store.recordFailure('t', 2, 1000, 60_000);
    await store.recordFailure('t', 2, 1000, 60_000);
    expect(await store.claimTrial('t', 31_000, 30_000)).toBe(true);
    const s = await store.recordFailure('t', 2, 31_000, 60_000);
    expect(s.openedAt).toBe(31_000);
    expect(await store.claimTrial('t', 31_000 + 29_000, 30_000)).toBe(false);
  });

  it('keeps targets apart', async () => {
    await store.recordFailure('x', 1, 1, 60_000);
    expect((await store.get('y')).openedAt).toBeNull();
    expect(await store.claimTrial('y', 2, 30_000)).toBe(true);
  });
});
