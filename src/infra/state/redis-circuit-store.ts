import type { Redis } from 'ioredis';
import type { CircuitState, CircuitStore } from './circuit-store.js';

const RECORD_FAILURE = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local opened = redis.call('HGET', KEYS[1], 'openedAt')
if opened or failures >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'openedAt', ARGV[2])
  redis.call('HDEL', KEYS[1], 'trialAt')
  opened = ARGV[2]
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {failures, opened or ''}
`;

const CLAIM_TRIAL = `
local opened = redis.call('HGET', KEYS[1], 'openedAt')
if not opened then return 1 end
local now = tonumber(ARGV[1])
local cooldown = tonumber(ARGV[2])
if now - tonumber(opened) < cooldown then return 0 end
local trial = redis.call('HGET', KEYS[1], 'trialAt')
if trial and now - tonumber(trial) < cooldown then return 0 end
redis.call('HSET', KEYS[1], 'trialAt', ARGV[1])
return 1
`;

/** Circuit state in Redis, shared by every replica; each transition is one atomic script. */
export class RedisCircuitStore implements CircuitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'gw:cb:',
  ) {}

  async get(key: string): Promise<CircuitState> {
    const h = await this.redis.hgetall(this.prefix + key);
    return { failures: Number(h.failures ?? 0), openedAt: h.openedAt ? Number(h.openedAt) : null };
  }

  async recordFailure(key: string, threshold: number, now: number, ttlMs: number): Promise<CircuitState> {
    const [failures, opened] = (await this.redis.eval(
      RECORD_FAILURE,
      1,
      this.prefix + key,
      threshold,
      now,
      Math.max(1, Math.ceil(ttlMs)),
    )) as [number, string];
    return { failures: Number(failures), openedAt: opened ? Number(opened) : null };
  }

  async recordSuccess(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async claimTrial(key: string, now: number, cooldownMs: number): Promise<boolean> {
    return (await this.redis.eval(CLAIM_TRIAL, 1, this.prefix + key, now, cooldownMs)) === 1;
  }

  async close(): Promise<void> {}
}
