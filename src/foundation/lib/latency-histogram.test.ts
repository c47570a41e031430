import { describe, expect, it } from 'vitest';
import { addTo, binOf, mergeHistogramTexts, mergeStored, percentilesOf, valueOfBin, type Histogram } from './latency-histogram.js';

/** Nearest-rank percentile of sorted values. */
const exact = (sorted: number[], p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1]!;

/** A small deterministic generator (so a failure is reproducible). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
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
      [7],
      [0, 0, 1],
      Array.from({ length: 101 }, (_, i) => i * 37),
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

  describe('mergeHistogramTexts (the SQLite rollup upsert)', () => {
    it('adds two stored histograms bin by bin, bins in ascending order', () => {
      expect(mergeHistogramTexts('{"3":2,"10":1}', '{"2":5,"10":4,"123":1}')).toBe('{"2":5,"3":2,"10":5,"123":1}');
      expect(mergeHistogramTexts('{}', '{"7":1}')).toBe('{"7":1}');
      expect(mergeHistogramTexts('{"0":9007199254740}', '{}')).toBe('{"0":9007199254740}');
      // What JSON.stringify writes for the same sums.
      const a: Record<number, number> = { 1: 1, 40: 3, 400: 2 };
      const b: Record<number, number> = { 40: 1, 2: 8 };
      expect(JSON.parse(mergeHistogramTexts(JSON.stringify(a), JSON.stringify(b)))).toEqual({ 1: 1, 2: 8, 40: 4, 400: 2 });
    });

    it('reads the other forms a stored histogram can take (spaces, key order of SQL, counts as strings)', () => {
      // SQLite's json_group_object of an earlier writer grouped bins as text: "10" before "2".
      expect(mergeHistogramTexts('{"10":1,"2":3}', '{"2":1}')).toBe('{"2":4,"10":1}');
      expect(mergeHistogramTexts('{ "5": 1, "6": "2" }', '{"6":1}')).toBe('{"5":1,"6":3}');
      expect(mergeHistogramTexts('{"5":1.5}', '{"5":1}')).toBe('{"5":2.5}');
    });

    it('counts what is not a JSON object as empty, and a text it gave up on half-way adds nothing twice', () => {
      for (const bad of [null, undefined, 42, '', 'not json', '[1,2]', 'null', '{"1":1', '{"a":1}', '{"-1":2}']) {
        expect(mergeHistogramTexts(bad, '{"4":1}')).toBe('{"4":1}');
        expect(mergeHistogramTexts('{"4":1}', bad)).toBe('{"4":1}');
      }
      // Read by characters up to the malformed entry, then through JSON.parse: the first entries count once.
      expect(mergeHistogramTexts('{"1":1,"2":2,"3":x}', '{"1":1}')).toBe('{"1":1}');
      expect(mergeHistogramTexts('{"1":1, "2":2}', '{"1":1}')).toBe('{"1":2,"2":2}');
    });

    it('keeps a bin of zero once, and bins past the dense range in order after the others', () => {
      expect(mergeHistogramTexts('{"8":0}', '{"8":3}')).toBe('{"8":3}');
      expect(mergeHistogramTexts('{"8":0}', '{}')).toBe('{"8":0}');
      expect(mergeHistogramTexts('{"50000":1,"3":1}', '{"4096":2,"4095":1}')).toBe('{"3":1,"4095":1,"4096":2,"50000":1}');
      // Nothing is left over for the next merge.
      expect(mergeHistogramTexts('{"1":1}', '{}')).toBe('{"1":1}');
    });

    it('writes histograms of any size, and counts that are not whole as JavaScript writes them', () => {
      // Bins as large as a number holds exactly, written wherever the text ends (near the end of its first buffer too: before the larger texts below grow it).
      const big = Number.MAX_SAFE_INTEGER;
      const wide: Record<string, number> = {};
      for (let bin = 0; bin < 1960; bin++) {
        wide[bin] = 1;
        if (bin < 1920) continue;
        // Bin 0's count shifts the text by one character at a time.
        for (let digits = 0; digits < 10; digits++) {
          wide[0] = 10 ** digits;
          const merged = mergeHistogramTexts(JSON.stringify(wide), `{ "${big}": ${big} }`);
          expect(merged.endsWith(`,"${big}":${big}}`)).toBe(true);
        }
      }
      const a: Record<number, number> = {};
      const b: Record<number, number> = {};
      for (let bin = 0; bin < 3000; bin++) a[bin] = 1_000_000_000 + bin;
      for (let bin = 2000; bin < 5000; bin += 3) b[bin] = 7;
      const merged = mergeHistogramTexts(JSON.stringify(a), JSON.stringify(b));
      expect(merged.length).toBeGreaterThan(16 * 1024);
      const want: Record<number, number> = { ...a };
      for (const [bin, n] of Object.entries(b)) want[Number(bin)] = (want[Number(bin)] ?? 0) + n;
      expect(merged).toBe(JSON.stringify(want));
      expect(mergeHistogramTexts('{"3": 0.25}', '{"3":1,"9":2}')).toBe('{"3":1.25,"9":2}');
      expect(mergeHistogramTexts('{"3": -4}', '{"3":1}')).toBe('{"3":-3}');
    });

    it('writes counts on both sides of 31 bits (integers below, doubles above) and every digit count', () => {
      const counts = [
        0,
        1,
        9,
        10,
        99,
        100,
        65_535,
        999_999_999,
        1_000_000_000,
        2 ** 31 - 2,
        2 ** 31 - 1,
        2 ** 31,
        2 ** 31 + 1,
        4_294_967_296,
        10 ** 15,
        Number.MAX_SAFE_INTEGER,
      ];
      for (const count of counts) {
        // Split in two so that the sum crosses the boundary inside the merge.
        const half = Math.floor(count / 2);
        expect(mergeHistogramTexts(`{"7":${half}}`, `{"7":${count - half},"4095":${count}}`)).toBe(`{"7":${count},"4095":${count}}`);
      }
    });
  });
});
