import { describe, expect, it } from 'vitest';
import { planRange } from './request-log-rollup-queries.js';

const T = Date.parse('2026-03-02T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

describe('planRange', () => {
  it('reads whole days in the middle, hours and minutes towards the edges, rows for partial minutes', () => {
    const start = T - 2 * HOUR - 3 * MIN - 1500;
    const end = T + 3 * DAY + 5 * HOUR + 7 * MIN + 250;
    const plan = planRange(start, end);
    expect(plan.raw).toEqual([
      { from: start, to: T - 2 * HOUR - 3 * MIN },
      { from: T + 3 * DAY + 5 * HOUR + 7 * MIN, to: end },
    ]);
    expect(plan.rollups).toEqual([
      { bucketMs: MIN, from: T - 2 * HOUR - 3 * MIN, to: T - 2 * HOUR },
      { bucketMs: HOUR, from: T - 2 * HOUR, to: T },
      { bucketMs: DAY, from: T, to: T + 3 * DAY },
      { bucketMs: HOUR, from: T + 3 * DAY, to: T + 3 * DAY + 5 * HOUR },
      { bucketMs: MIN, from: T + 3 * DAY + 5 * HOUR, to: T + 3 * DAY + 5 * HOUR + 7 * MIN },
    ]);
    const covered = [...plan.raw.map((r) => r.to - r.from), ...plan.rollups.map((r) => r.to - r.from)].reduce((a, b) => a + b, 0);
    expect(covered).toBe(end - start);
  });

  it('a range within one minute is all rows; only the allowed widths are used', () => {
    expect(planRange(T + 1000, T + 59_000)).toEqual({ rollups: [], raw: [{ from: T + 1000, to: T + 59_000 }] });
    expect(planRange(T, T + 2 * DAY, [MIN, HOUR])).toEqual({ rollups: [{ bucketMs: HOUR, from: T, to: T + 2 * DAY }], raw: [] });
    expect(planRange(T, T + DAY, [])).toEqual({ rollups: [], raw: [{ from: T, to: T + DAY }] });
  });
});
