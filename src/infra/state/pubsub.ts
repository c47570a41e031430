import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { waitForRedis } from './redis-ready.js';

/** Broadcast of small messages between replicas (runtime snapshot invalidation). */
export interface PubSub {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** Single-process pub/sub. */
export class MemoryPubSub implements PubSub {
  private readonly emitter = new EventEmitter();
  async publish(channel: string, message: string): Promise<void> {
    this.emitter.emit(channel, message);
  }
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    this.emitter.on(channel, handler);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** Redis pub/sub; the subscriber uses its own connection (a subscribed connection cannot run commands). */
export class RedisPubSub implements PubSub {
  private readonly handlers = new Map<string, Array<(m: string) => void>>();
  private readonly sub: Redis;

  constructor(
    private readonly pub: Redis,
    private readonly prefix = 'gw:',
  ) {
    this.sub = pub.duplicate();
    this.sub.on('message', (channel: string, message: string) => {
      for (const h of this.handlers.get(channel) ?? []) h(message);
    });
    this.sub.on('error', () => {});
    // A channel whose SUBSCRIBE could not be sent (Redis unreachable at startup) is subscribed once the
    // connection is up; SUBSCRIBE is idempotent, so channels ioredis resubscribes itself are harmless here.
    this.sub.on('ready', () => {
      const names = [...this.handlers.keys()];
      if (names.length > 0) this.sub.subscribe(...names).catch(() => {});
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.pub.publish(this.prefix + channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const name = this.prefix + channel;
    const list = this.handlers.get(name) ?? [];
    list.push(handler);
    this.handlers.set(name, list);
    if (list.length === 1) {
      // Commands fail fast while not connected (no offline queue): wait for the connection at startup,
      // unless Redis is already known to be unreachable; then the 'ready' listener subscribes later.
      if (this.pub.status === 'ready') await waitForRedis(this.sub).catch(() => {});
      if (this.sub.status === 'ready') await this.sub.subscribe(name).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.sub.disconnect();
  }
}
