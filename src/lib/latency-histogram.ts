/**
 * Log-spaced latency histograms of the analytics rollups. Bin `k ≥ 1` holds the latencies in
 * (γ^(k-2), γ^(k-1)] ms with γ = 1.019 (bins about 1.9% wide); bin 0 holds 0 ms (and anything below).
 * A bin is read back as the middle of its range, clamped to the whole milliseconds it can hold, so the
 * value read for a percentile is within (γ-1)/(γ+1) ≈ 0.94% of the exact one (below 1% after rounding
 * to two decimals); a bin that can hold one whole millisecond only reads back exactly.
 * A histogram is stored as a JSON object `{"<bin>": count}` of its non-empty bins (the rollup writer
 * builds it as an object keyed by bin and serialises it with `JSON.stringify`).
 */
export const HISTOGRAM_GAMMA = 1.019;
const LOG_GAMMA = Math.log(HISTOGRAM_GAMMA);

/** The bin of a latency (ms). */
export function binOf(latencyMs: number): number {
  if (!(latencyMs >= 1)) return 0;
  return 1 + Math.ceil(Math.log(latencyMs) / LOG_GAMMA - 1e-9);
}

/** The latency a bin reads back as (see the module comment for the bound). */
export function valueOfBin(bin: number): number {
  if (bin <= 0) return 0;
  const hi = Math.pow(HISTOGRAM_GAMMA, bin - 1);
  const lo = hi / HISTOGRAM_GAMMA;
  const firstWhole = Math.floor(lo + 1e-9) + 1;
  const lastWhole = Math.floor(hi + 1e-9);
  const middle = (2 * hi) / (HISTOGRAM_GAMMA + 1);
  if (lastWhole <= firstWhole) return Math.max(1, lastWhole);
  return Math.round(Math.min(lastWhole, Math.max(firstWhole, middle)) * 100) / 100;
}

/** A histogram being added up: bin → count. */
export type Histogram = Map<number, number>;

/** Adds `count` latencies of `latencyMs`. */
export function addTo(h: Histogram, latencyMs: number, count = 1): void {
  const bin = binOf(latencyMs);
  h.set(bin, (h.get(bin) ?? 0) + count);
}

/** Adds a stored histogram (its JSON text) to `into`. */
export function mergeStored(into: Histogram, text: string): void {
  const stored = JSON.parse(text) as Record<string, number | string>;
  for (const key in stored) {
    const bin = Number(key);
    into.set(bin, (into.get(bin) ?? 0) + Number(stored[key]));
  }
}

/**
 * Nearest-rank percentiles (the ⌈p·n/100⌉-th smallest latency) read from a histogram: the bin that
 * holds that latency, read back by `valueOfBin`. Null for an empty histogram.
 */
export function percentilesOf(h: Histogram, ps: readonly number[]): Array<number | null> {
  let n = 0;
  for (const c of h.values()) n += c;
  if (n === 0) return ps.map(() => null);
  const bins = [...h.keys()].sort((a, b) => a - b);
  return ps.map((p) => {
    const rank = Math.max(1, Math.ceil((p * n) / 100));
    let seen = 0;
    for (const b of bins) {
      seen += h.get(b)!;
      if (seen >= rank) return valueOfBin(b);
    }
    return valueOfBin(bins[bins.length - 1]!);
  });
}
