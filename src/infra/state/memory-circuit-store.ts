import type { CircuitState, CircuitStore } from './circuit-store.js';

interface Entry extends CircuitState {
  trialAt: number | null;
  expiresAt: number;
}

/** In-process circuit state (the embedded default). */
export class MemoryCircuitStore implements CircuitStore {
  private readonly entries = new Map<string, Entry>();

  async get(key: string): Promise<CircuitState> {
    const e = this.entries.get(key);
    return e ? { failures: e.failures, openedAt: e.openedAt } : { failures: 0, openedAt: null };
  }

  async recordFailure(key: string, threshold: number, now: number, ttlMs: number): Promise<CircuitState> {
    this.sweep(now);
    const e = this.entries.get(key) ?? { failures: 0, openedAt: null, trialAt: null, expiresAt: 0 };
    e.failures += 1;
    if (e.openedAt !== null || e.failures >= threshold) {
      e.openedAt = now;
      e.trialAt = null;
    }
    e.expiresAt = now + ttlMs;
    this.entries.set(key, e);
    return { failures: e.failures, openedAt: e.openedAt };
  }

  async recordSuccess(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async claimTrial(key: string, now: number, cooldownMs: number): Promise<boolean> {
    const e = this.entries.get(key);
    if (!e || e.openedAt === null) return true;
    if (now - e.openedAt < cooldownMs) return false;
    if (e.trialAt !== null && now - e.trialAt < cooldownMs) return false;
    e.trialAt = now;
    return true;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  private sweep(now: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) if (e.expiresAt < now) this.entries.delete(k);
  }
}
