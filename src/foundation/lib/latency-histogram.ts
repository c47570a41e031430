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

/** Bins below this are added up by `mergeHistogramTexts` in an array (latencies up to ~10^33 ms: all there are); others in a map. */
const DENSE_BINS = 4096;
/** Counts per bin of the histogram `mergeHistogramTexts` is adding up, the bins below `DENSE_BINS` it touched, the others. */
const mergeCounts = new Float64Array(DENSE_BINS);
const mergeTouched = new Uint8Array(DENSE_BINS);
/** The lowest and highest dense bin touched (the written text walks the bins between them in order: no sort). */
let mergeLow = DENSE_BINS;
let mergeHigh = -1;
const mergeSparse = new Map<number, number>();

/** Adds `count` to `bin` of the histogram being merged. */
function addToMerge(bin: number, count: number): void {
  if (bin < DENSE_BINS) {
    mergeTouched[bin] = 1;
    if (bin < mergeLow) mergeLow = bin;
    if (bin > mergeHigh) mergeHigh = bin;
    mergeCounts[bin]! += count;
  } else mergeSparse.set(bin, (mergeSparse.get(bin) ?? 0) + count);
}

/** The bins and counts of the text `addStoredText` is reading (kept until the whole text has been read; grown as needed). */
let scanBins = new Float64Array(512);
let scanCounts = new Float64Array(512);

/**
 * Adds a stored histogram to the merge, read from its text as the rollup writers write it (`{"<bin>":<count>,…}`,
 * whole numbers, no spaces); false when the text is in another form (then nothing was added).
 */
function addStoredText(text: string): boolean {
  const n = text.length;
  if (n < 2 || text.charCodeAt(0) !== 0x7b || text.charCodeAt(n - 1) !== 0x7d) return false;
  if (n === 2) return true;
  // Each entry takes 6 characters at least (`"1":1,`).
  const most = Math.ceil(n / 6);
  if (scanBins.length < most) {
    scanBins = new Float64Array(2 * most);
    scanCounts = new Float64Array(2 * most);
  }
  let entries = 0;
  let i = 1;
  for (;;) {
    if (text.charCodeAt(i++) !== 0x22) return false;
    let bin = 0;
    const binStart = i;
    for (let c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i)) bin = bin * 10 + (c - 0x30);
    if (i === binStart || i - binStart > 9 || text.charCodeAt(i++) !== 0x22 || text.charCodeAt(i++) !== 0x3a) return false;
    let count = 0;
    const countStart = i;
    for (let c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i)) count = count * 10 + (c - 0x30);
    if (i === countStart || i - countStart > 15) return false;
    scanBins[entries] = bin;
    scanCounts[entries++] = count;
    const next = text.charCodeAt(i++);
    if (next === 0x7d && i === n) break;
    if (next !== 0x2c) return false;
  }
  for (let k = 0; k < entries; k++) addToMerge(scanBins[k]!, scanCounts[k]!);
  return true;
}

/** Adds a stored histogram in any other JSON form (spaces, counts as numeric strings) to the merge; not an object: nothing. */
function addStoredJson(text: string): void {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return;
  for (const key in stored) {
    const bin = Number(key);
    const count = Number((stored as Record<string, unknown>)[key]);
    if (Number.isSafeInteger(bin) && bin >= 0 && Number.isFinite(count)) addToMerge(bin, count);
  }
}

/**
 * Two stored histograms (JSON texts `{"<bin>": count}`) added bin by bin, as one stored histogram (bins in
 * ascending order, as `JSON.stringify` writes an object keyed by bin). Anything but a JSON object (null, a
 * malformed text) counts as empty. The SQLite rollup writer's upsert calls it (as the SQL function
 * `gateway_merge_histograms`, once per histogram row of every batch): SQLite's JSON functions spent far more
 * on it (`json_each` of both, a sort to group the bins, `json_group_object`), and so did `JSON.parse` and
 * `JSON.stringify` of objects keyed by number (elements, not properties, for V8); the writers' own form is
 * read straight from its characters, any other through `JSON.parse`.
 */
export function mergeHistogramTexts(a: unknown, b: unknown): string {
  if (typeof a === 'string' && !addStoredText(a)) addStoredJson(a);
  if (typeof b === 'string' && !addStoredText(b)) addStoredJson(b);
  mergeText[0] = 0x7b;
  let at = 1;
  for (let bin = mergeLow; bin <= mergeHigh; bin++) {
    if (mergeTouched[bin] === 0) continue;
    at = writeEntry(at, bin, mergeCounts[bin]!);
    mergeCounts[bin] = 0;
    mergeTouched[bin] = 0;
  }
  mergeLow = DENSE_BINS;
  mergeHigh = -1;
  if (mergeSparse.size > 0) {
    for (const bin of [...mergeSparse.keys()].sort((x, y) => x - y)) at = writeEntry(at, bin, mergeSparse.get(bin)!);
    mergeSparse.clear();
  }
  mergeText[at++] = 0x7d;
  return mergeText.toString('latin1', 0, at);
}

/** The text `mergeHistogramTexts` writes (grown as needed). */
let mergeText = Buffer.alloc(16 * 1024);

/** Writes `,"<bin>":<count>` (no comma first) at `at` of `mergeText`; returns where it ends. */
function writeEntry(at: number, bin: number, count: number): number {
  // A bin and a whole count have 16 digits at most; any other count is written as JavaScript writes it.
  const countText = Number.isSafeInteger(count) && count >= 0 ? undefined : String(count);
  if (mergeText.length < at + 40 + (countText?.length ?? 0)) {
    const grown = Buffer.alloc(2 * mergeText.length + (countText?.length ?? 0));
    mergeText.copy(grown, 0, 0, at);
    mergeText = grown;
  }
  const text = mergeText;
  if (at > 1) text[at++] = 0x2c;
  text[at++] = 0x22;
  at = writeDigits(text, at, bin);
  text[at++] = 0x22;
  text[at++] = 0x3a;
  if (countText === undefined) return writeDigits(text, at, count);
  return at + text.write(countText, at, 'latin1');
}

/**
 * The decimal digits of the whole number `n` (≥ 0) at `at`; returns where they end. Counts come from a
 * `Float64Array`, and `%` of a double is a call out of V8's compiled code for every digit: a number that fits 31
 * bits (a histogram's counts do, short of two billion in one bin) is written as an integer instead (a merge of
 * two 163-bin texts: ~24 → ~13 µs).
 */
function writeDigits(text: Buffer, at: number, n: number): number {
  if (n <= 0x7fffffff) return writeSmallDigits(text, at, n | 0);
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    text[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + digits;
}

/** `writeDigits` of an integer of 31 bits. */
function writeSmallDigits(text: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = (rest / 10) | 0) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    text[i] = 0x30 + (n % 10);
    n = (n / 10) | 0;
  }
  return at + digits;
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
