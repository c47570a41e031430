import type { PeriodicReset } from '../../infra/store/repos/usage-limit-policies.js';

const DAY_MS = 86_400_000;
/** 1970-01-05 was a Monday: weekly windows without an anchor start on Monday 00:00 UTC. */
const MONDAY_MS = 4 * DAY_MS;

/** The reset schedule of a usage-limit policy (times in ms since the epoch). */
export interface ResetSchedule {
  periodicReset: PeriodicReset | null;
  periodicResetDays: number | null;
  /** The given next reset (00:00 UTC of its day), or null. */
  anchor: number | null;
  /** When the policy was created: the start of its first window. */
  createdAt: number;
}

/** A usage window: its start (part of every counter key) and its end (null: it never resets). */
export interface UsageWindow {
  start: number;
  resetAt: number | null;
}

/** 00:00:00 UTC of the day containing `ms`. */
export function utcMidnight(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The same instant `months` calendar months later, its day clamped to the month's length. */
function addMonths(ms: number, months: number, day: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(day, last));
}

/** The monthly window containing `now`, resetting on `day` of each month (clamped), 00:00 UTC. */
function monthlyWindow(now: number, day: number): UsageWindow {
  const d = new Date(now);
  let start = addMonths(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), 0, day);
  if (start > now) start = addMonths(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), -1, day);
  const next = new Date(start);
  return { start, resetAt: addMonths(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), 1), 1, day) };
}

/** The fixed-length window containing `now`, aligned to `origin`. */
function periodWindow(now: number, origin: number, periodMs: number): UsageWindow {
  const start = origin + Math.floor((now - origin) / periodMs) * periodMs;
  return { start, resetAt: start + periodMs };
}

/**
 * The window containing `now`. Before a given next reset (`anchor`), the window runs from creation to
 * the anchor. From then on (or from creation without an anchor): `weekly` windows of 7 days (aligned to
 * the anchor, else Monday 00:00 UTC), `monthly` windows from one day of the month to the same day of the
 * next (the anchor's day, else the 1st; clamped to short months), `periodic_reset_days` windows of N
 * days (aligned to the anchor, else to the creation day's midnight). Without a period the window after
 * the anchor never ends; without either, the only window starts at creation.
 */
export function usageWindow(s: ResetSchedule, now: number): UsageWindow {
  if (s.anchor !== null && now < s.anchor) return { start: s.createdAt, resetAt: s.anchor };
  if (s.periodicReset === 'weekly') return periodWindow(now, s.anchor ?? MONDAY_MS, 7 * DAY_MS);
  if (s.periodicReset === 'monthly') return monthlyWindow(now, s.anchor !== null ? new Date(s.anchor).getUTCDate() : 1);
  if (s.periodicResetDays !== null) return periodWindow(now, s.anchor ?? utcMidnight(s.createdAt), s.periodicResetDays * DAY_MS);
  return { start: s.anchor ?? s.createdAt, resetAt: null };
}
