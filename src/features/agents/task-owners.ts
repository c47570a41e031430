import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** How long the gateway remembers who created a task (7 days): afterwards its tasks/get is "not found". */
export const TASK_OWNER_TTL_MS = 7 * 86_400_000;

/**
 * Who created each task of each agent server (control-plane.md §10: a caller sees only the tasks it
 * created). The first owner recorded for a task keeps it.
 */
export interface TaskOwners {
  /** Records `owner` for the tasks not owned yet. */
  record(serverId: string, taskId: string, owner: string): Promise<void>;
  /** The owner of a task, or undefined when none is recorded (never created through the gateway, or expired). */
  ownerOf(serverId: string, taskId: string): Promise<string | undefined>;
}

/**
 * In-process owners (one replica, no Redis): at most `max` tasks, the oldest forgotten first. The LRU is built
 * at the first task recorded: lru-cache allocates its arrays for `max` entries up front (4.4 MB for 100,000 with
 * a TTL), which a gateway that never relays an agent task would carry for nothing.
 */
export class MemoryTaskOwners implements TaskOwners {
  private owners: LRUCache<string, string> | undefined;

  constructor(
    private readonly max = 100_000,
    private readonly ttlMs = TASK_OWNER_TTL_MS,
  ) {}

  async record(serverId: string, taskId: string, owner: string): Promise<void> {
    const owners = (this.owners ??= new LRUCache({ max: this.max, ttl: this.ttlMs }));
    const key = `${serverId}:${taskId}`;
    if (!owners.has(key)) owners.set(key, owner);
  }

  async ownerOf(serverId: string, taskId: string): Promise<string | undefined> {
    return this.owners?.get(`${serverId}:${taskId}`);
  }
}

/** Owners shared by every replica: one Redis key per task (`<prefix><server id>:<task id>`), set once, with a TTL. */
export class RedisTaskOwners implements TaskOwners {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = TASK_OWNER_TTL_MS,
  ) {}

  async record(serverId: string, taskId: string, owner: string): Promise<void> {
    await this.redis.set(`${this.prefix}${serverId}:${taskId}`, owner, 'PX', this.ttlMs, 'NX');
  }

  async ownerOf(serverId: string, taskId: string): Promise<string | undefined> {
    return (await this.redis.get(`${this.prefix}${serverId}:${taskId}`)) ?? undefined;
  }
}
