/**
 * Counters behind usage-limit policies. A counter is one group of one policy in one window: the
 * window's start is part of its identity, so a reset (scheduled or by hand) never races a job that
 * wipes fresh spend — the next window simply starts at zero.
 */

/** One counter a request reserves on. */
export interface UsageReservation {
  policyId: string;
  /** Start of the policy's current window (ms since the epoch). */
  windowStart: number;
  /** When the window ends (null: never); counters expire a while after it. */
  resetAt: number | null;
  /** The group's identity: JSON of its group-by values (`{}` without group_by). */
  group: string;
  limit: number;
  /** Units to add on admission: 1 for requests, the estimate for tokens, 0 when nothing can be estimated. */
  amount: number;
  /**
   * `true` (requests): admitted only when `used + amount <= limit`, so N concurrent requests admit
   * exactly the limit. `false` (tokens, cost): admitted while `used < limit`.
   */
  strict: boolean;
}

/** Settles a reservation: the real amount minus the reserved one (may be negative or zero). */
export interface UsageSettlement {
  policyId: string;
  windowStart: number;
  resetAt: number | null;
  group: string;
  delta: number;
  /** The policy's alert threshold: the settlement that first reaches it in the window claims the alert. */
  alertAt: number | null;
}

/** A settlement's result: the group's usage after it, and whether this call claimed the window's alert. */
export interface SettleResult {
  used: number;
  alert: boolean;
}

/** A group's usage in a window. */
export interface GroupUsage {
  group: string;
  used: number;
}

/**
 * Atomic usage counters. `reserve` checks every entry and, only when all pass, adds each amount — one
 * atomic step, so concurrent callers (replicas too, for Redis) never admit past the rule above.
 * Implementations: memory (one process) and Redis (shared); one conformance suite covers both.
 */
export interface UsageCounterStore {
  reserve(entries: readonly UsageReservation[]): Promise<{ admitted: boolean; used: number[] }>;
  settle(entries: readonly UsageSettlement[]): Promise<SettleResult[]>;
  /** Every group with usage in the policy's window. */
  groups(policyId: string, windowStart: number): Promise<GroupUsage[]>;
  /** Sets one group's usage in the window back to zero (and re-arms its alert). */
  reset(policyId: string, windowStart: number, group: string): Promise<void>;
  close(): Promise<void>;
}

/** Counters outlive their window by this much (clock skew between replicas, entity reads after a reset). */
export const USAGE_TTL_GRACE_MS = 86_400_000;
