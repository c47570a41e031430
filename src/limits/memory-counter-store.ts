import type { Clock } from '../lib/clock.js';
import { windowOf, type AdmitResult, type CounterAddition, type CounterEntry, type RateCounterStore } from './counter-store.js';

const SWEEP_EVERY_MS = 60_000;

/**
 * Counters in this process (the embedded default). Check and increment run synchronously, so
 * concurrent requests of the process are admitted exactly up to the limit. Past windows are swept
 * once a minute of the clock.
 */
export class MemoryCounterStore implements RateCounterStore {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  private lastSweep: number;

  constructor(private readonly clock: Clock) {
    this.lastSweep = clock.now();
  }

  async admit(entries: readonly CounterEntry[]): Promise<AdmitResult> {
    const now = this.clock.now();
    this.sweep(now);
    const slots = entries.map((e) => {
      const w = windowOf(now, e.windowMs);
      const key = `${e.key}:${w.start}`;
      return { key, resetAt: w.resetAt, count: this.counters.get(key)?.count ?? 0 };
    });
    const admitted = entries.every((e, i) => (e.cost > 0 ? slots[i]!.count + e.cost <= e.limit : slots[i]!.count < e.limit));
    if (admitted) {
      entries.forEach((e, i) => {
        if (e.cost <= 0) return;
        const s = slots[i]!;
        s.count += e.cost;
        this.counters.set(s.key, { count: s.count, resetAt: s.resetAt });
      });
    }
    return { admitted, readings: slots.map((s) => ({ count: s.count, resetAt: s.resetAt })) };
  }

  async add(additions: readonly CounterAddition[]): Promise<void> {
    const now = this.clock.now();
    for (const a of additions) {
      if (a.amount <= 0) continue;
      const w = windowOf(now, a.windowMs);
      const key = `${a.key}:${w.start}`;
      const cur = this.counters.get(key);
      this.counters.set(key, { count: (cur?.count ?? 0) + a.amount, resetAt: w.resetAt });
    }
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [k, v] of this.counters) if (v.resetAt <= now) this.counters.delete(k);
  }
}
