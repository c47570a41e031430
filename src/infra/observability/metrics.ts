import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { KnownModels, SeriesCap, statusLabel } from './metric-labels.js';
import { LeanCounter, LeanHistogram } from '../fast/lean-metrics.js';
import { StringTree } from '../../foundation/lib/string-tree.js';

/** Hard series cap per metric: beyond it, new label sets are recorded with every label `other`. */
export const MAX_SERIES = 500;
/** Models the GenAI histograms name at most (the rest are `other`). */
export const MAX_GENAI_MODELS = 5;

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
type RequestLabel = 'endpoint' | 'provider' | 'model' | 'status';
const REQUEST_LABELS: readonly RequestLabel[] = ['endpoint', 'provider', 'model', 'status'];
const UPSTREAM_LABELS = ['provider', 'status'] as const;
/** Labels of the GenAI metrics (semantic-convention attribute names with `.` as `_`). */
const GEN_AI_LABELS = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const;
type GenAiLabel = (typeof GEN_AI_LABELS)[number] | 'gen_ai_token_type' | 'error_type';
/** Bucket boundaries of `gen_ai.client.token.usage` and `gen_ai.client.operation.duration` (semantic conventions). */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const GEN_AI_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** One provider operation of a finished request, as the GenAI metrics see it. */
export interface GenAiObservation {
  /** `gen_ai.operation.name` (`genAiOperationName`). */
  operation: string;
  provider: string;
  model: string | undefined;
  inputTokens?: number;
  outputTokens?: number;
  seconds: number;
  /** The error code when the operation failed. */
  errorType?: string;
  /** What the request cost (USD), when priced. */
  cost?: number;
}

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

/** Default sampling interval of the event-loop delay monitor, ms (`GATEWAY_EVENT_LOOP_MONITOR_MS`). */
export const EVENT_LOOP_MONITOR_MS = 100;

/**
 * Prometheus metrics of one gateway process. Every label value is bounded (see metric-labels.ts):
 * models only once a provider answered with them (else `other`), statuses 100–599, control characters
 * stripped, lengths capped, and a hard series cap per metric.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly models = new KnownModels();
  /**
   * The models the GenAI histograms name: the first {@link MAX_GENAI_MODELS} the request metrics know
   * (each costs three histograms of ~15 buckets, so fewer than the request series); later ones are `other`.
   */
  private readonly genAiModels = new KnownModels(MAX_GENAI_MODELS);
  // The request counter and duration histogram share one label set, hence one cap.
  private readonly requestSeries = new SeriesCap(REQUEST_LABELS, MAX_SERIES);
  private readonly upstreamSeries = new SeriesCap(UPSTREAM_LABELS, MAX_SERIES);
  // The per-request metrics are lean-metrics.ts's (rendered by the registry like prom-client's own): no label hashing per observation.
  private readonly requests = new LeanCounter(
    'gateway_requests_total',
    'Requests answered, by endpoint, provider, model and status code.',
    REQUEST_LABELS,
    this.registry,
  );
  private readonly latency = new LeanHistogram(
    'gateway_request_duration_seconds',
    'Time from request received to answer complete.',
    REQUEST_LABELS,
    BUCKETS,
    this.registry,
  );
  private readonly upstreamLatency = new LeanHistogram(
    'gateway_upstream_duration_seconds',
    'Time from upstream call sent to response headers received.',
    UPSTREAM_LABELS,
    BUCKETS,
    this.registry,
  );
  /** Degraded operations; `component` is a constant of the code, never request data. */
  readonly warnings = new Counter({
    name: 'gateway_degraded_total',
    help: 'Degraded operations (shared state unreachable, logs dropped), by component.',
    labelNames: ['component'] as const,
    registers: [this.registry],
  });

  private readonly genAiLabelSets = new StringTree<GenAiLabelSets>();
  private readonly genAiSeries = new SeriesCap<GenAiLabel>([...GEN_AI_LABELS, 'gen_ai_token_type', 'error_type'], MAX_SERIES);
  private readonly tokenUsage = new LeanHistogram(
    'gen_ai_client_token_usage',
    'Tokens used per provider operation (gen_ai.client.token.usage), by operation, provider, model and token type (input, output).',
    [...GEN_AI_LABELS, 'gen_ai_token_type'] as const,
    TOKEN_BUCKETS,
    this.registry,
  );
  private readonly operationDuration = new LeanHistogram(
    'gen_ai_client_operation_duration_seconds',
    'Duration of provider operations (gen_ai.client.operation.duration), by operation, provider, model and error type (`none` when it succeeded).',
    [...GEN_AI_LABELS, 'error_type'] as const,
    GEN_AI_DURATION_BUCKETS,
    this.registry,
  );
  private readonly cost = new LeanCounter(
    'gen_ai_client_cost_usd_total',
    'Cost of provider operations in US dollars, by operation, provider and model.',
    GEN_AI_LABELS,
    this.registry,
  );

  readonly requestLogDropped = new Counter({
    name: 'gateway_request_log_dropped_total',
    help: 'Request log rows dropped: the in-memory bound was reached while the store was unreachable, or the store refused the row.',
    registers: [this.registry],
  });

  /**
   * @param eventLoopMonitorMs how often Node's event-loop delay monitor samples (`nodejs_eventloop_lag_*`): a libuv
   * timer that wakes the process this often, busy or idle (prom-client's default, 10 ms, was 100 wake-ups a second
   * and most of an idle gateway's instructions).
   */
  constructor(eventLoopMonitorMs = EVENT_LOOP_MONITOR_MS) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: eventLoopMonitorMs });
  }

  /** Counts a finished data-plane request and observes its duration. */
  observeRequest(r: RequestObservation): void {
    if (r.answeredModel !== undefined && r.status >= 200 && r.status < 300) this.models.learn(r.answeredModel);
    const labels = this.requestSeries.admit({
      endpoint: r.endpoint,
      provider: r.provider,
      model: this.models.label(r.model),
      status: statusLabel(r.status),
    });
    this.requests.inc(labels);
    this.latency.observe(labels, r.seconds);
  }

  /** Observes one provider operation: its tokens by type, its duration (with the error type when it failed) and its cost. */
  observeGenAi(o: GenAiObservation): void {
    const known = this.models.label(o.model);
    if (known !== 'other') this.genAiModels.learn(known);
    const s = this.genAiLabels(o.operation, o.provider, this.genAiModels.label(o.model), o.errorType ?? 'none');
    if (o.inputTokens !== undefined)
      this.tokenUsage.observe((s.input ??= pick(this.admitGenAi(s, 'input', ''), 'error_type')), o.inputTokens);
    if (o.outputTokens !== undefined)
      this.tokenUsage.observe((s.output ??= pick(this.admitGenAi(s, 'output', ''), 'error_type')), o.outputTokens);
    this.operationDuration.observe((s.duration ??= pick(this.admitGenAi(s, '', s.errorType), 'gen_ai_token_type')), o.seconds);
    if (o.cost !== undefined && o.cost > 0) {
      if (s.cost === undefined) {
        const { gen_ai_operation_name, gen_ai_provider_name, gen_ai_request_model } = this.admitGenAi(s, '', '');
        s.cost = { gen_ai_operation_name, gen_ai_provider_name, gen_ai_request_model };
      }
      this.cost.inc(s.cost, o.cost);
    }
  }

  /**
   * The label sets of one GenAI operation, provider, model label and error type, each admitted on its
   * first use and then remembered (at most 4 × MAX_SERIES tuples; beyond that, admitted anew each time):
   * an observation builds no label objects. An answer never changes (a series once admitted stays, the
   * cap is never lowered).
   */
  private genAiLabels(operation: string, provider: string, model: string, errorType: string): GenAiLabelSets {
    let sets = this.genAiLabelSets.get(operation, provider, model, errorType);
    if (sets !== undefined) return sets;
    sets = { operation, provider, model, errorType, input: undefined, output: undefined, duration: undefined, cost: undefined };
    if (this.genAiLabelSets.size < MAX_SERIES * 4) this.genAiLabelSets.set(sets, operation, provider, model, errorType);
    return sets;
  }

  private admitGenAi(s: GenAiLabelSets, tokenType: string, errorType: string): Record<GenAiLabel, string> {
    return this.genAiSeries.admit({
      gen_ai_operation_name: s.operation,
      gen_ai_provider_name: s.provider,
      gen_ai_request_model: s.model,
      gen_ai_token_type: tokenType,
      error_type: errorType,
    });
  }

  /** Observes the time to an upstream's response headers. */
  observeUpstream(provider: string, status: number, seconds: number): void {
    this.upstreamLatency.observe(this.upstreamSeries.admit({ provider, status: statusLabel(status) }), seconds);
  }
}

/** The label sets one GenAI observation records under (see `Metrics.genAiLabels`). */
interface GenAiLabelSets {
  readonly operation: string;
  readonly provider: string;
  readonly model: string;
  readonly errorType: string;
  input: Record<Exclude<GenAiLabel, 'error_type'>, string> | undefined;
  output: Record<Exclude<GenAiLabel, 'error_type'>, string> | undefined;
  duration: Record<Exclude<GenAiLabel, 'gen_ai_token_type'>, string> | undefined;
  cost: Record<(typeof GEN_AI_LABELS)[number], string> | undefined;
}

/** The labels without `drop` (a label the metric does not carry), as a new object built key by key (no `delete`: it keeps a fast shape). */
function pick<L extends string, D extends L>(labels: Record<L, string>, drop: D): Record<Exclude<L, D>, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(labels)) if (k !== drop) out[k] = labels[k as L];
  return out as Record<Exclude<L, D>, string>;
}
