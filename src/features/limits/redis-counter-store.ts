import type { Redis } from 'ioredis';
import type { Clock } from '../../foundation/lib/clock.js';
import { RedisScript } from '../../infra/state/redis-script.js';
import { windowOf, type AdmitResult, type CounterAddition, type CounterEntry, type RateCounterStore } from './counter-store.js';

/** Checks every key (ARGV: limit, cost, ttl per key) and increments them only when all pass. */
const ADMIT = new RedisScript(`
local counts = {}
local ok = 1
for i = 1, #KEYS do
  local cur = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = cur
  local limit = tonumber(ARGV[i * 3 - 2])
  local cost = tonumber(ARGV[i * 3 - 1])
  if cost > 0 then
    if cur + cost > limit then ok = 0 end
  elseif cur >= limit then
    ok = 0
  end
end
if ok == 1 then
  for i = 1, #KEYS do
    local cost = tonumber(ARGV[i * 3 - 1])
    if cost > 0 then
      counts[i] = redis.call('INCRBY', KEYS[i], cost)
      redis.call('PEXPIRE', KEYS[i], ARGV[i * 3])
    end
  end
end
table.insert(counts, 1, ok)
return counts
`);

/** Adds to every key (ARGV: amount, ttl per key). */
const ADD = new RedisScript(`
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[i * 2 - 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[i * 2])
end
return 1
`);

/** Keys outlive their window by this much (clock skew between replicas). */
const TTL_GRACE_MS = 60_000;

/**
 * Counters in Redis shared by every replica. Each `admit` is one Lua script, atomic on the Redis
 * server: N replicas together admit exactly the limit. The window comes from the caller's clock
 * (replicas are assumed NTP-synchronised; skew only moves a window edge), so tests can drive it with
 * a fake clock. Keys: `<prefix><policy>:<type>:<unit>[:<group hash>]:<window start>`.
 */
export class RedisCounterStore implements RateCounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  async admit(entries: readonly CounterEntry[]): Promise<AdmitResult> {
    const now = this.clock.now();
    const windows = entries.map((e) => windowOf(now, e.windowMs));
    if (entries.length === 0) return { admitted: true, readings: [] };
    const keys = entries.map((e, i) => `${this.prefix}${e.key}:${windows[i]!.start}`);
    const args = entries.flatMap((e, i) => [e.limit, e.cost, ttl(windows[i]!.resetAt, now)]);
    const reply = (await ADMIT.run(this.redis, keys, args)) as number[];
    return {
      admitted: Number(reply[0]) === 1,
      readings: entries.map((_, i) => ({ count: Number(reply[i + 1]), resetAt: windows[i]!.resetAt })),
    };
  }

  async add(additions: readonly CounterAddition[]): Promise<void> {
    const now = this.clock.now();
    const live = additions.filter((a) => a.amount > 0);
    if (live.length === 0) return;
    const windows = live.map((a) => windowOf(now, a.windowMs));
    const keys = live.map((a, i) => `${this.prefix}${a.key}:${windows[i]!.start}`);
    await ADD.run(
      this.redis,
      keys,
      live.flatMap((a, i) => [Math.round(a.amount), ttl(windows[i]!.resetAt, now)]),
    );
  }

  async close(): Promise<void> {}
}

function ttl(resetAt: number, now: number): number {
  return Math.max(1, resetAt - now + TTL_GRACE_MS);
}
