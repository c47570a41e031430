import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryTaskOwners, RedisTaskOwners, type TaskOwners } from '../../src/features/agents/task-owners.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import { REDIS_URL } from '../helpers/gateway.js';

const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const KINDS: Array<{ name: string; make(ttlMs?: number): TaskOwners }> = [
  { name: 'memory', make: (ttlMs) => new MemoryTaskOwners(1000, ttlMs) },
  { name: 'redis', make: (ttlMs) => new RedisTaskOwners(redis, `gwtest:${randomId(8)}:a2a:`, ttlMs) },
];

describe.each(KINDS)('task owners conformance: $name', ({ make }) => {
  it('records the first owner of a task, per agent server; unknown tasks have none', async () => {
    const owners = make();
    expect(await owners.ownerOf('s1', 't1')).toBeUndefined();
    await owners.record('s1', 't1', 'key:a');
    await owners.record('s1', 't1', 'key:b');
    expect(await owners.ownerOf('s1', 't1')).toBe('key:a');
    // The same task id at another agent server is another task.
    expect(await owners.ownerOf('s2', 't1')).toBeUndefined();
    await owners.record('s2', 't1', 'key:b');
    expect(await owners.ownerOf('s2', 't1')).toBe('key:b');
  });

  it('forgets owners after their time to live', async () => {
    const owners = make(50);
    await owners.record('s1', 't-short', 'key:a');
    expect(await owners.ownerOf('s1', 't-short')).toBe('key:a');
    await new Promise((r) => setTimeout(r, 120));
    expect(await owners.ownerOf('s1', 't-short')).toBeUndefined();
  });
});

describe('task owners across replicas (Redis)', () => {
  it('an owner recorded by one replica is seen by another', async () => {
    const prefix = `gwtest:${randomId(8)}:a2a:`;
    await new RedisTaskOwners(redis, prefix).record('s', 't', 'user:u1');
    expect(await new RedisTaskOwners(redis, prefix).ownerOf('s', 't')).toBe('user:u1');
  });
});
