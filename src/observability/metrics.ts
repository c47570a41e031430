import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { KnownModels, SeriesCap, statusLabel } from './metric-labels.js';

/** Hard series cap per metric: beyond it, new label sets are recorded with every label `other`. */
export const MAX_SERIES = 500;

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
type RequestLabel = 'endpoint' | 'provider' | 'model' | 'status';
const REQUEST_LABELS: readonly RequestLabel[] = ['endpoint', 'provider', 'model', 'status'];
const UPSTREAM_LABELS = ['provider', 'status'] as const;

/** One answered data-plane request, as the metrics see it. */
export interface RequestObservation {
  endpoint: string;
  /** Provider adapter name, or `none` when no provider was reached. */
  provider: string;
  /** The model the request names or the provider answered with. */
  model: string | undefined;
  status: number;
  seconds: number;
  /** The model a provider answered with in a 2xx answer: it becomes a known model label. */
  answeredModel?: string;
}

/**
 * Prometheus metrics of one gateway process. Every label value is bounded (see metric-labels.ts):
 * models only once a provider answered with them (else `other`), statuses 100–599, control characters
 * stripped, lengths capped, and a hard series cap per metric.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly models = new KnownModels();
  // The request counter and duration histogram share one label set, hence one cap.
  private readonly requestSeries = new SeriesCap(REQUEST_LABELS, MAX_SERIES);
  private readonly upstreamSeries = new SeriesCap(UPSTREAM_LABELS, MAX_SERIES);
  private readonly requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests answered, by endpoint, provider, model and status code.',
    labelNames: REQUEST_LABELS,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Time from request received to answer complete.',
    labelNames: REQUEST_LABELS,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamLatency = new Histogram({
    name: 'gateway_upstream_duration_seconds',
    help: 'Time from upstream call sent to response headers received.',
    labelNames: UPSTREAM_LABELS,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  /** Degraded operations; `component` is a constant of the code, never request data. */
  readonly warnings = new Counter({
    name: 'gateway_degraded_total',
    help: 'Degraded operations (shared state unreachable, logs dropped), by component.',
    labelNames: ['component'] as const,
    registers: [this.registry],
  });

  readonly requestLogDropped = new Counter({
    name: 'gateway_request_log_dropped_total',
    help: 'Request log rows dropped: the in-memory bound was reached while the store was unreachable, or the store refused the row.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts a finished data-plane request and observes its duration. */
  observeRequest(r: RequestObservation): void {
    if (r.answeredModel !== undefined && r.status >= 200 && r.status < 300) this.models.learn(r.answeredModel);
    const labels = this.requestSeries.admit({ endpoint: r.endpoint, provider: r.provider, model: this.models.label(r.model), status: statusLabel(r.status) });
    this.requests.inc(labels);
    this.latency.observe(labels, r.seconds);
  }

  /** Observes the time to an upstream's response headers. */
  observeUpstream(provider: string, status: number, seconds: number): void {
    this.upstreamLatency.observe(this.upstreamSeries.admit({ provider, status: statusLabel(status) }), seconds);
  }
}
