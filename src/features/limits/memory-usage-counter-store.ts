import type { Clock } from '../../foundation/lib/clock.js';
import {
  USAGE_TTL_GRACE_MS,
  type GroupUsage,
  type SettleResult,
  type UsageCounterStore,
  type UsageReservation,
  type UsageSettlement,
} from './usage-counter-store.js';

interface Window {
  groups: Map<string, number>;
  alerted: Set<string>;
  expiresAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Usage counters in this process (the embedded default). Reserve runs synchronously, so concurrent
 * requests of the process are admitted exactly by the rule. Windows are dropped a day after they end.
 */
export class MemoryUsageCounterStore implements UsageCounterStore {
  /** Policy id → window start → window (nested: no key string built per request). */
  private readonly windows = new Map<string, Map<number, Window>>();
  private lastSweep: number;

  constructor(private readonly clock: Clock) {
    this.lastSweep = clock.now();
  }

  async reserve(entries: readonly UsageReservation[]): Promise<{ admitted: boolean; used: number[] }> {
    this.sweep();
    // Loops, not map/every/forEach with closures: this runs on every request a policy matches.
    const wins: Window[] = [];
    const used: number[] = [];
    let admitted = true;
    for (const e of entries) {
      const w = this.window(e.policyId, e.windowStart, e.resetAt);
      const u = w.groups.get(e.group) ?? 0;
      wins.push(w);
      used.push(u);
      if (e.strict ? u + e.amount > e.limit : u >= e.limit) admitted = false;
    }
    if (admitted) {
      for (let i = 0; i < entries.length; i++) {
        used[i] = used[i]! + entries[i]!.amount;
        wins[i]!.groups.set(entries[i]!.group, used[i]!);
      }
    }
    return { admitted, used };
  }

  async settle(entries: readonly UsageSettlement[]): Promise<SettleResult[]> {
    const results: SettleResult[] = [];
    for (const e of entries) {
      const w = this.window(e.policyId, e.windowStart, e.resetAt);
      const used = (w.groups.get(e.group) ?? 0) + e.delta;
      w.groups.set(e.group, used);
      const alert = e.alertAt !== null && used >= e.alertAt && !w.alerted.has(e.group);
      if (alert) w.alerted.add(e.group);
      results.push({ used, alert });
    }
    return results;
  }

  async groups(policyId: string, windowStart: number): Promise<GroupUsage[]> {
    const w = this.windows.get(policyId)?.get(windowStart);
    return w ? [...w.groups].map(([group, used]) => ({ group, used })) : [];
  }

  async reset(policyId: string, windowStart: number, group: string): Promise<void> {
    const w = this.windows.get(policyId)?.get(windowStart);
    w?.groups.delete(group);
    w?.alerted.delete(group);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private window(policyId: string, windowStart: number, resetAt: number | null): Window {
    let byStart = this.windows.get(policyId);
    if (!byStart) this.windows.set(policyId, (byStart = new Map()));
    let w = byStart.get(windowStart);
    if (!w) {
      w = { groups: new Map(), alerted: new Set(), expiresAt: resetAt === null ? Infinity : resetAt + USAGE_TTL_GRACE_MS };
      byStart.set(windowStart, w);
    }
    return w;
  }

  private sweep(): void {
    const now = this.clock.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [policyId, byStart] of this.windows) {
      for (const [start, w] of byStart) if (w.expiresAt <= now) byStart.delete(start);
      if (byStart.size === 0) this.windows.delete(policyId);
    }
  }
}
