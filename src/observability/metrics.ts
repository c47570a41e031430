import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of one gateway process. Labels are bounded: endpoint, provider, model, status.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests answered, by endpoint, provider, model and status code.',
    labelNames: ['endpoint', 'provider', 'model', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Time from request received to answer complete.',
    labelNames: ['endpoint', 'provider', 'model', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: 'gateway_upstream_duration_seconds',
    help: 'Time from upstream call sent to response headers received.',
    labelNames: ['provider', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
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
}
