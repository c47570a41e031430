import { describe, expect, it } from 'vitest';
import { addTo, binOf, mergeStored, percentilesOf, valueOfBin, type Histogram } from './latency-histogram.js';

/** Nearest-rank percentile of sorted values. */
const exact = (sorted: number[], p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1]!;

/** A small deterministic generator (so a failure is reproducible). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('latency histogram', () => {
  it('reads every whole millisecond from 0 to 200,000 back within 1% (exactly below 50 ms)', () => {
    let worst = 0;
    const inexactBelow50: number[] = [];
    for (let v = 0; v <= 200_000; v++) {
      const read = valueOfBin(binOf(v));
      if (v < 50 && read !== v) inexactBelow50.push(v);
      if (v > 0) worst = Math.max(worst, Math.abs(read - v) / v);
    }
    expect(inexactBelow50).toEqual([]);
    expect(worst).toBeLessThan(0.01);
  });

  it('percentiles of skewed, spiky and tiny samples are within 1% of the exact nearest-rank ones', () => {
    const next = lcg(42);
    const samples: number[][] = [
      Array.from({ length: 5000 }, () => Math.round(Math.exp(5 + 2 * next()) * (1 + next()))), // log-spread
      Array.from({ length: 3000 }, (_, i) => (i % 100 === 0 ? 30_000 + Math.round(next() * 5000) : 200 + Math.round(next() * 50))), // a tail
      [7], [0, 0, 1], Array.from({ length: 101 }, (_, i) => i * 37),
    ];
    for (const values of samples) {
      const h: Histogram = new Map();
      for (const v of values) addTo(h, v);
      const sorted = [...values].sort((a, b) => a - b);
      const ps = [50, 95, 99, 100];
      percentilesOf(h, ps).forEach((read, i) => {
        const e = exact(sorted, ps[i]!);
        expect(Math.abs(read! - e), `p${ps[i]} ${read} vs ${e}`).toBeLessThanOrEqual(e * 0.01);
      });
    }
  });

  it('merging stored histograms (JSON objects of bins) adds them bin by bin', () => {
    const text = JSON.stringify({ [binOf(1)]: 2, [binOf(500)]: 1, [binOf(900)]: 1 });
    const merged: Histogram = new Map();
    mergeStored(merged, text);
    mergeStored(merged, text);
    expect(merged.get(binOf(1))).toBe(4);
    expect(percentilesOf(new Map(), [50])).toEqual([null]);
  });
});
