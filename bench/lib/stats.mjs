/**
 * Percentile math for latency samples the bench's own clients record (autocannon reports its own).
 * Nearest-rank definition: the p-th percentile is the smallest sample with at least p% of the samples
 * at or below it. Inputs are milliseconds.
 */

/**
 * The p-th percentile (0 < p <= 100) of an ascending array, nearest rank; NaN for an empty array.
 * @param {ArrayLike<number>} sorted ascending
 * @param {number} p
 */
export function percentile(sorted, p) {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.min(n, Math.max(1, rank)) - 1];
}

/**
 * Count, mean, min, P50, P90, P99 and max of a list of samples (copied, then sorted numerically).
 * @param {ArrayLike<number>} samples
 */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  return {
    count: n,
    mean: n ? sum / n : NaN,
    min: n ? sorted[0] : NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n ? sorted[n - 1] : NaN,
  };
}

/**
 * Whether memory grew during a soak: compares the peak of the last third of the samples with the peak
 * of the first third (the first third starts after warm-up). Grows when the later peak is more than
 * `tolerance` (default 10%) above the earlier one.
 * @param {number[]} rssMb samples in time order
 * @param {number} [tolerance]
 */
export function memoryGrowth(rssMb, tolerance = 0.1) {
  if (rssMb.length < 3) return { grows: false, firstPeak: NaN, lastPeak: NaN, change: NaN, enoughSamples: false };
  const third = Math.floor(rssMb.length / 3);
  const firstPeak = Math.max(...rssMb.slice(0, third));
  const lastPeak = Math.max(...rssMb.slice(rssMb.length - third));
  const change = (lastPeak - firstPeak) / firstPeak;
  return { grows: change > tolerance, firstPeak, lastPeak, change, enoughSamples: true };
}
