import { describe, expect, it } from 'vitest';
import { DEFAULT_TRANSITION_MS, firstRotationAt, followingRotationAt, nextBoundary, transitionMs } from './rotation-schedule.js';

const at = (s: string) => Date.parse(s);

describe('rotation schedule', () => {
  it('weekly: the next Monday 00:00 UTC, strictly after', () => {
    expect(nextBoundary('weekly', at('2026-05-06T13:00:00Z'))).toBe(at('2026-05-11T00:00:00Z')); // Wednesday
    expect(nextBoundary('weekly', at('2026-05-10T23:59:59Z'))).toBe(at('2026-05-11T00:00:00Z')); // Sunday
    expect(nextBoundary('weekly', at('2026-05-11T00:00:00Z'))).toBe(at('2026-05-18T00:00:00Z')); // Monday, on the boundary
    expect(nextBoundary('weekly', at('2026-12-29T10:00:00Z'))).toBe(at('2027-01-04T00:00:00Z')); // across a year
  });

  it('monthly: the next 1st 00:00 UTC, strictly after', () => {
    expect(nextBoundary('monthly', at('2026-05-06T13:00:00Z'))).toBe(at('2026-06-01T00:00:00Z'));
    expect(nextBoundary('monthly', at('2026-06-01T00:00:00Z'))).toBe(at('2026-07-01T00:00:00Z'));
    expect(nextBoundary('monthly', at('2026-12-31T23:00:00Z'))).toBe(at('2027-01-01T00:00:00Z'));
  });

  it('the first rotation: next_rotation_at (future only), else the period, else none', () => {
    const now = at('2026-05-06T13:00:00Z');
    expect(firstRotationAt({ next_rotation_at: '2026-05-07T00:00:00Z', rotation_period: 'monthly' }, now)).toBe(at('2026-05-07T00:00:00Z'));
    expect(firstRotationAt({ rotation_period: 'weekly' }, now)).toBe(at('2026-05-11T00:00:00Z'));
    expect(firstRotationAt({ key_transition_period_ms: DEFAULT_TRANSITION_MS }, now)).toBeNull();
    expect(firstRotationAt(null, now)).toBeNull();
    expect(() => firstRotationAt({ next_rotation_at: '2026-05-06T12:00:00Z' }, now)).toThrow(/future/);
    expect(followingRotationAt({ next_rotation_at: '2026-05-07T00:00:00Z' }, now)).toBeNull();
    expect(followingRotationAt({ rotation_period: 'monthly' }, now)).toBe(at('2026-06-01T00:00:00Z'));
  });

  it('the transition: the request, else the policy, else 30 minutes', () => {
    expect(transitionMs(null)).toBe(1_800_000);
    expect(transitionMs({ key_transition_period_ms: 3_600_000 })).toBe(3_600_000);
    expect(transitionMs({ key_transition_period_ms: 3_600_000 }, 2_000_000)).toBe(2_000_000);
  });
});
