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

/** In-process owners (one replica, no Redis): at most `max` tasks, the oldest forgotten first. */
export class MemoryTaskOwners implements TaskOwners {
  private readonly owners: LRUCache<string, string>;

  constructor(max = 100_000, ttlMs = TASK_OWNER_TTL_MS) {
    this.owners = new LRUCache({ max, ttl: ttlMs });
  }

  async record(serverId: string, taskId: string, owner: string): Promise<void> {
    const key = `${serverId}:${taskId}`;
    if (!this.owners.has(key)) this.owners.set(key, owner);
  }

  async ownerOf(serverId: string, taskId: string): Promise<string | undefined> {
    return this.owners.get(`${serverId}:${taskId}`);
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
