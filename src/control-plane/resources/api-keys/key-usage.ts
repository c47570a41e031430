import type { Store } from '../../../infra/store/store.js';
import { touchApiKeys } from '../../../infra/store/repos/api-keys.js';
import type { ScheduledJob } from '../../../foundation/lib/scheduler.js';

/**
 * `last_used_at` off the hot path: authentication only adds the key's id to an in-memory set
 * (`touch`, no I/O, no await); `flush` writes the set's keys' `last_used_at` in batches, run every few
 * seconds by the scheduler and once at shutdown. A failed flush keeps the ids for the next one.
 */
export class KeyUsage {
  private touched = new Set<string>();

  /** Called once per authenticated request. */
  touch(keyId: string): void {
    this.touched.add(keyId);
  }

  /** Writes the keys touched since the last flush as used at `now`. */
  async flush(store: Store, now: number): Promise<void> {
    if (this.touched.size === 0) return;
    const ids = [...this.touched];
    this.touched = new Set();
    try {
      await touchApiKeys(store.db, ids, now);
    } catch (err) {
      for (const id of ids) this.touched.add(id);
      throw err;
    }
  }

  /** The scheduler job flushing every `everyMs`. */
  job(store: Store, now: () => number, everyMs: number): ScheduledJob {
    return { name: 'api-key-last-used', everyMs, run: () => this.flush(store, now()) };
  }
}
