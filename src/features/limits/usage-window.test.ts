import { describe, expect, it } from 'vitest';
import { usageWindow, utcMidnight, type ResetSchedule } from './usage-window.js';

const t = (s: string) => Date.parse(s);
const base: ResetSchedule = { periodicReset: null, periodicResetDays: null, anchor: null, createdAt: t('2026-03-10T15:30:00Z') };

describe('usageWindow', () => {
  it('never resets without a schedule: one window from creation', () => {
    expect(usageWindow(base, t('2030-01-01T00:00:00Z'))).toEqual({ start: base.createdAt, resetAt: null });
  });

  it('weekly: Monday 00:00 UTC to the next Monday', () => {
    const s = { ...base, periodicReset: 'weekly' as const };
    expect(usageWindow(s, t('2026-03-11T12:00:00Z'))).toEqual({ start: t('2026-03-09T00:00:00Z'), resetAt: t('2026-03-16T00:00:00Z') });
    expect(usageWindow(s, t('2026-03-16T00:00:00Z')).start).toBe(t('2026-03-16T00:00:00Z'));
  });

  it('monthly: first of the month to the first of the next, across a year end', () => {
    const s = { ...base, periodicReset: 'monthly' as const };
    expect(usageWindow(s, t('2026-12-31T23:59:59Z'))).toEqual({ start: t('2026-12-01T00:00:00Z'), resetAt: t('2027-01-01T00:00:00Z') });
    expect(usageWindow(s, t('2027-01-01T00:00:00Z')).start).toBe(t('2027-01-01T00:00:00Z'));
  });

  it('monthly with an anchor on the 31st resets on the last day of short months', () => {
    const s = { ...base, periodicReset: 'monthly' as const, anchor: t('2026-03-31T00:00:00Z') };
    expect(usageWindow(s, t('2026-03-20T00:00:00Z'))).toEqual({ start: base.createdAt, resetAt: t('2026-03-31T00:00:00Z') });
    expect(usageWindow(s, t('2026-04-15T00:00:00Z'))).toEqual({ start: t('2026-03-31T00:00:00Z'), resetAt: t('2026-04-30T00:00:00Z') });
    expect(usageWindow(s, t('2026-04-30T00:00:00Z'))).toEqual({ start: t('2026-04-30T00:00:00Z'), resetAt: t('2026-05-31T00:00:00Z') });
  });

  it('every N days: aligned to the creation day, or to the given next reset', () => {
    const s = { ...base, periodicResetDays: 3 };
    expect(usageWindow(s, t('2026-03-12T01:00:00Z'))).toEqual({ start: t('2026-03-10T00:00:00Z'), resetAt: t('2026-03-13T00:00:00Z') });
    expect(usageWindow(s, t('2026-03-13T00:00:00Z')).start).toBe(t('2026-03-13T00:00:00Z'));
    const anchored = { ...s, anchor: t('2026-03-20T00:00:00Z') };
    expect(usageWindow(anchored, t('2026-03-19T00:00:00Z'))).toEqual({ start: base.createdAt, resetAt: t('2026-03-20T00:00:00Z') });
    expect(usageWindow(anchored, t('2026-03-24T00:00:00Z'))).toEqual({
      start: t('2026-03-23T00:00:00Z'),
      resetAt: t('2026-03-26T00:00:00Z'),
    });
  });

  it('a given next reset alone resets once, then never again', () => {
    const s = { ...base, anchor: t('2026-04-01T00:00:00Z') };
    expect(usageWindow(s, t('2026-03-31T23:59:59Z'))).toEqual({ start: base.createdAt, resetAt: t('2026-04-01T00:00:00Z') });
    expect(usageWindow(s, t('2027-01-01T00:00:00Z'))).toEqual({ start: t('2026-04-01T00:00:00Z'), resetAt: null });
  });

  it('utcMidnight drops the time of day', () => {
    expect(utcMidnight(t('2026-03-10T15:30:00.123Z'))).toBe(t('2026-03-10T00:00:00Z'));
  });
});
