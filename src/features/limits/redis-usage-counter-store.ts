import type { Redis } from 'ioredis';
import type { Clock } from '../../foundation/lib/clock.js';
import { RedisScript } from '../../infra/state/redis-script.js';
import {
  USAGE_TTL_GRACE_MS,
  type GroupUsage,
  type SettleResult,
  type UsageCounterStore,
  type UsageReservation,
  type UsageSettlement,
} from './usage-counter-store.js';

/** KEYS: one hash per entry. ARGV per entry: group, limit, amount, strict (1/0), ttl ms (0: never). */
const RESERVE = new RedisScript(`
local used = {}
local ok = 1
for i = 1, #KEYS do
  local b = (i - 1) * 5
  local cur = tonumber(redis.call('HGET', KEYS[i], ARGV[b + 1]) or '0')
  used[i] = cur
  local limit = tonumber(ARGV[b + 2])
  local amount = tonumber(ARGV[b + 3])
  if ARGV[b + 4] == '1' then
    if cur + amount > limit then ok = 0 end
  elseif cur >= limit then
    ok = 0
  end
end
if ok == 1 then
  for i = 1, #KEYS do
    local b = (i - 1) * 5
    if tonumber(ARGV[b + 3]) ~= 0 then
      used[i] = tonumber(redis.call('HINCRBYFLOAT', KEYS[i], ARGV[b + 1], ARGV[b + 3]))
    end
    if ARGV[b + 5] ~= '0' then redis.call('PEXPIRE', KEYS[i], ARGV[b + 5]) end
  end
end
local out = { ok }
for i = 1, #KEYS do out[i + 1] = tostring(used[i]) end
return out
`);

/** KEYS: hash, alerts hash per entry. ARGV per entry: group, delta, alert-at ('' for none), ttl ms (0: never). */
const SETTLE = new RedisScript(`
local out = {}
for i = 1, #KEYS / 2 do
  local h = KEYS[i * 2 - 1]
  local a = KEYS[i * 2]
  local b = (i - 1) * 4
  local used = tonumber(redis.call('HINCRBYFLOAT', h, ARGV[b + 1], ARGV[b + 2]))
  local alert = 0
  if ARGV[b + 3] ~= '' and used >= tonumber(ARGV[b + 3]) then
    alert = redis.call('HSETNX', a, ARGV[b + 1], '1')
    if ARGV[b + 4] ~= '0' then redis.call('PEXPIRE', a, ARGV[b + 4]) end
  end
  if ARGV[b + 4] ~= '0' then redis.call('PEXPIRE', h, ARGV[b + 4]) end
  out[#out + 1] = tostring(used)
  out[#out + 1] = alert
end
return out
`);

/** Time to live of a window's keys by the caller's clock (0: never expires). */
function ttl(resetAt: number | null, now: number): number {
  return resetAt === null ? 0 : Math.max(1, resetAt + USAGE_TTL_GRACE_MS - now);
}

/**
 * Usage counters in Redis, shared by every replica. One hash per policy window
 * (`<prefix><policy>:<window start>`, field = group) and one for the window's claimed alerts
 * (`…:alerts`). `reserve` and `settle` are one Lua script each: one round trip, atomic on the server.
 */
export class RedisUsageCounterStore implements UsageCounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  private key(policyId: string, windowStart: number): string {
    return `${this.prefix}${policyId}:${windowStart}`;
  }

  async reserve(entries: readonly UsageReservation[]): Promise<{ admitted: boolean; used: number[] }> {
    if (entries.length === 0) return { admitted: true, used: [] };
    const now = this.clock.now();
    const keys = entries.map((e) => this.key(e.policyId, e.windowStart));
    const args = entries.flatMap((e) => [e.group, e.limit, e.amount, e.strict ? 1 : 0, ttl(e.resetAt, now)]);
    const reply = (await RESERVE.run(this.redis, keys, args)) as Array<number | string>;
    return { admitted: Number(reply[0]) === 1, used: entries.map((_, i) => Number(reply[i + 1])) };
  }

  async settle(entries: readonly UsageSettlement[]): Promise<SettleResult[]> {
    if (entries.length === 0) return [];
    const now = this.clock.now();
    const keys = entries.flatMap((e) => [this.key(e.policyId, e.windowStart), `${this.key(e.policyId, e.windowStart)}:alerts`]);
    const args = entries.flatMap((e) => [e.group, e.delta, e.alertAt === null ? '' : e.alertAt, ttl(e.resetAt, now)]);
    const reply = (await SETTLE.run(this.redis, keys, args)) as Array<number | string>;
    return entries.map((_, i) => ({ used: Number(reply[i * 2]), alert: Number(reply[i * 2 + 1]) === 1 }));
  }

  async groups(policyId: string, windowStart: number): Promise<GroupUsage[]> {
    const all = await this.redis.hgetall(this.key(policyId, windowStart));
    return Object.entries(all).map(([group, used]) => ({ group, used: Number(used) }));
  }

  async reset(policyId: string, windowStart: number, group: string): Promise<void> {
    const key = this.key(policyId, windowStart);
    await this.redis.multi().hdel(key, group).hdel(`${key}:alerts`, group).exec();
  }

  async close(): Promise<void> {}
}
