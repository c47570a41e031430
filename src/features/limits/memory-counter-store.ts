import type { Clock } from '../../foundation/lib/clock.js';
import {
  windowOf,
  type AdmitResult,
  type CounterAddition,
  type CounterEntry,
  type CounterReading,
  type RateCounterStore,
} from './counter-store.js';

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
    // Loops, not map/every/forEach with closures: this runs on every request a policy matches.
    const slots: Array<{ key: string; start: number; resetAt: number; count: number }> = [];
    let admitted = true;
    for (const e of entries) {
      const w = windowOf(now, e.windowMs);
      const count = this.counters.get(e.key)?.get(w.start)?.count ?? 0;
      slots.push({ key: e.key, start: w.start, resetAt: w.resetAt, count });
      if (e.cost > 0 ? count + e.cost > e.limit : count >= e.limit) admitted = false;
    }
    const readings: CounterReading[] = [];
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i]!;
      const cost = entries[i]!.cost;
      if (admitted && cost > 0) {
        s.count += cost;
        this.slot(s.key, s.start, s.resetAt).count = s.count;
      }
      readings.push({ count: s.count, resetAt: s.resetAt });
    }
    return { admitted, readings };
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
