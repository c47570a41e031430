import type { Clock } from '../lib/clock.js';
import { windowOf, type AdmitResult, type CounterAddition, type CounterEntry, type RateCounterStore } from './counter-store.js';

const SWEEP_EVERY_MS = 60_000;

/**
 * Counters in this process (the embedded default). Check and increment run synchronously, so
 * concurrent requests of the process are admitted exactly up to the limit. Past windows are swept
 * once a minute of the clock.
 */
export class MemoryCounterStore implements RateCounterStore {
  /** Counter key → window start → count (nested: no key string built per request). */
  private readonly counters = new Map<string, Map<number, { count: number; resetAt: number }>>();
  private lastSweep: number;

  constructor(private readonly clock: Clock) {
    this.lastSweep = clock.now();
  }

  async admit(entries: readonly CounterEntry[]): Promise<AdmitResult> {
    const now = this.clock.now();
    this.sweep(now);
    const slots = entries.map((e) => {
      const w = windowOf(now, e.windowMs);
      return { key: e.key, start: w.start, resetAt: w.resetAt, count: this.counters.get(e.key)?.get(w.start)?.count ?? 0 };
    });
    const admitted = entries.every((e, i) => (e.cost > 0 ? slots[i]!.count + e.cost <= e.limit : slots[i]!.count < e.limit));
    if (admitted) {
      entries.forEach((e, i) => {
        if (e.cost <= 0) return;
        const s = slots[i]!;
        s.count += e.cost;
        this.slot(s.key, s.start, s.resetAt).count = s.count;
      });
    }
    return { admitted, readings: slots.map((s) => ({ count: s.count, resetAt: s.resetAt })) };
  }

  async add(additions: readonly CounterAddition[]): Promise<void> {
    const now = this.clock.now();
    for (const a of additions) {
      if (a.amount <= 0) continue;
      const w = windowOf(now, a.windowMs);
      this.slot(a.key, w.start, w.resetAt).count += a.amount;
    }
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, byStart] of this.counters) {
      for (const [start, v] of byStart) if (v.resetAt <= now) byStart.delete(start);
      if (byStart.size === 0) this.counters.delete(key);
    }
  }

  /** The counter of `key` in the window starting at `start` (made at 0). */
  private slot(key: string, start: number, resetAt: number): { count: number; resetAt: number } {
    let byStart = this.counters.get(key);
    if (!byStart) this.counters.set(key, (byStart = new Map()));
    let slot = byStart.get(start);
    if (!slot) byStart.set(start, (slot = { count: 0, resetAt }));
    return slot;
  }
}
