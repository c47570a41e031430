import type { Registry } from 'prom-client';

/**
 * A histogram and a counter for the per-request metrics, registered in a prom-client `Registry` and
 * rendered by it exactly as prom-client's own (the same value records: `_bucket` with `le`, `_sum`,
 * `_count`; a counter's value per label set). What differs is the hot path: prom-client validates the
 * labels, joins them into a hash string and looks that up in an object on every observation (7 per
 * request: ~25k instructions of string building and hashing, measured with callgrind). Here a label
 * set admitted by `SeriesCap` (the same object every time) finds its series by identity in a Map;
 * only a new label set is keyed by its values.
 */

type Labels<L extends string> = Record<L, string>;

/** At most this many label objects are remembered by identity (label sets the caller did not remember are keyed by value each time). */
const MAX_BY_IDENTITY = 4096;

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
  sharedLabels?: Record<string, string>;
  exemplar?: null;
}

/** The series of a metric: by label-object identity (bounded), then by the labels' values. */
class SeriesMap<L extends string, S> {
  private readonly byIdentity = new Map<Labels<L>, S>();
  readonly byValues = new Map<string, S>();

  constructor(
    private readonly names: readonly L[],
    private readonly create: (labels: Labels<L>) => S,
  ) {}

  get(labels: Labels<L>): S {
    const known = this.byIdentity.get(labels);
    if (known !== undefined) return known;
    let key = '';
    for (const n of this.names) {
      const v = labels[n];
      if (typeof v !== 'string') throw new Error(`Missing label '${n}'`);
      key += v + '\u0000';
    }
    let s = this.byValues.get(key);
    if (s === undefined) {
      const own = {} as Labels<L>;
      for (const n of this.names) own[n] = labels[n];
      this.byValues.set(key, (s = this.create(own)));
    }
    if (this.byIdentity.size < MAX_BY_IDENTITY) this.byIdentity.set(labels, s);
    return s;
  }

  clear(): void {
    this.byIdentity.clear();
    this.byValues.clear();
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket (not cumulated); the last slot is above every bound (+Inf only). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A Prometheus histogram (see the module comment). */
export class LeanHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series: SeriesMap<L, HistogramSeries<L>>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly L[],
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    this.series = new SeriesMap(labelNames, (labels) => ({ labels, counts: new Float64Array(buckets.length + 1), sum: 0, count: 0 }));
    registry.registerMetric(this as never);
  }

  /** Observes `value` in the series of `labels` (which must carry every label name). */
  observe(labels: Labels<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const s = this.series.get(labels);
    const b = this.buckets;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** The value records prom-client's registry renders (the same as prom-client's Histogram gives it). */
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const s of this.series.byValues.values()) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.buckets[i]! }, sharedLabels: s.labels, value: acc, metricName: bucketName, exemplar: null });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucketName, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    this.series.clear();
  }
}

interface CounterSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

/** A Prometheus counter with labels (see the module comment). */
export class LeanCounter<L extends string> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly series: SeriesMap<L, CounterSeries<L>>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly L[],
    registry: Registry,
  ) {
    this.series = new SeriesMap(labelNames, (labels) => ({ labels, value: 0 }));
    registry.registerMetric(this as never);
  }

  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels: Labels<L>, value = 1): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    if (value < 0) throw new Error('It is not possible to decrease a counter');
    this.series.get(labels).value += value;
  }

  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    const values: MetricValue[] = [];
    for (const s of this.series.byValues.values()) values.push({ value: s.value, labels: s.labels });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    this.series.clear();
  }
}
