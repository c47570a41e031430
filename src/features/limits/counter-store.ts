/**
 * Fixed-window counters behind rate-limit policies. Windows are aligned to the epoch in UTC (a minute
 * starts at :00, an hour at :00:00, a day at midnight UTC, a week on Monday 00:00 UTC), so every
 * replica computes the same window for the same instant and the reset time is known in advance.
 */

/** 1970-01-01 was a Thursday: weeks are shifted by four days so they start on Monday. */
const WEEK_MS = 604_800_000;
const WEEK_OFFSET_MS = 4 * 86_400_000;

/** The window containing `now`: its start (part of the counter key) and when it resets. */
export function windowOf(now: number, windowMs: number): { start: number; resetAt: number } {
  const offset = windowMs === WEEK_MS ? WEEK_OFFSET_MS : 0;
  const start = Math.floor((now - offset) / windowMs) * windowMs + offset;
  return { start, resetAt: start + windowMs };
}

/** One counter a request touches. */
export interface CounterEntry {
  /** Counter identity (policy and group); the store appends the window start. */
  key: string;
  windowMs: number;
  /** The policy's value. */
  limit: number;
  /**
   * Units to add on admission (1 for a requests policy). 0 only checks that the window's budget is
   * not spent yet (a tokens policy before the request: `count < limit`).
   */
  cost: number;
}

/** A counter's value in the current window and when the window resets (ms since the epoch). */
export interface CounterReading {
  count: number;
  resetAt: number;
}

/** The answer of `admit`: readings are in the order of the entries (after the increment when admitted). */
export interface AdmitResult {
  admitted: boolean;
  readings: CounterReading[];
}

/** Units to add to a counter without refusing (tokens of a finished request). */
export interface CounterAddition {
  key: string;
  windowMs: number;
  amount: number;
}

/**
 * Atomic windowed counters. `admit` checks every entry and, only when all pass (`count + cost <= limit`
 * for cost > 0, `count < limit` for cost 0), adds each cost — all in one atomic step, so concurrent
 * callers (replicas included, for the Redis store) together never admit more than the limit.
 * Implementations: memory (one process) and Redis (shared); one conformance suite covers both.
 */
export interface RateCounterStore {
  admit(entries: readonly CounterEntry[]): Promise<AdmitResult>;
  add(additions: readonly CounterAddition[]): Promise<void>;
  close(): Promise<void>;
}
