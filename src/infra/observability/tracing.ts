import type { TraceSamplerSetting } from './trace-sampler-setting.js';

/** Attribute values a span takes (OpenTelemetry's primitive values and arrays of them). */
export type SpanAttributeValue = string | number | boolean | string[] | number[];

/** Attributes of a span by name (`gen_ai.request.model`, `http.response.status_code` …). */
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/**
 * One span of a request's trace, as the gateway's code sees it (the tracing hook). A feature adds its
 * own spans under the request's: `request.gw.span?.child('execute_tool get_weather', 'client', {...})`
 * — with tracing off there is no span, so the optional call costs nothing.
 */
export interface GatewaySpan {
  /** The trace id (32 hex characters). */
  readonly traceId: string;
  /** Whether message contents may be recorded (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
  readonly captureContent: boolean;
  /** Starts a span under this one (`internal`: work inside the gateway; `client`: a call to another service). */
  child(name: string, kind: 'internal' | 'client', attributes?: SpanAttributes): GatewaySpan;
  /** Sets attributes (undefined values are skipped). */
  set(attributes: SpanAttributes): void;
  /** Marks the span failed with an error code (`error.type`) and message. */
  fail(code: string, message?: string): void;
  /** Ends the span (once; later calls do nothing). */
  end(): void;
}

/** Whether message contents may go into spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
export interface TracingOptions {
  /** Full URL of the OTLP/HTTP traces endpoint. */
  endpoint: string;
  /** The export's encoding: binary protobuf (the OpenTelemetry default) or JSON. */
  protocol: 'http/protobuf' | 'http/json';
  captureContent: boolean;
  /** Wait before exporting a batch of ended spans, ms. */
  scheduleDelayMs: number;
  /** The sampler deciding per request (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`). */
  sampler: TraceSamplerSetting;
}

/** A loaded tracer: starts each request's SERVER span (joining an incoming `traceparent`) and flushes on close. */
export interface Tracing {
  readonly captureContent: boolean;
  /** The request's SERVER span; `headers` may carry a W3C `traceparent` (and `tracestate`) to join. */
  startRequest(name: string, headers: Record<string, string | string[] | undefined>, attributes: SpanAttributes): GatewaySpan;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/** The key of `locals` (a data-plane request's and its route input's) under which the routing span travels to the leaves. */
export const ROUTING_SPAN = 'routingSpan';

/** The routing span a request's `locals` carry, when it is traced. */
export function routingSpanOf(locals: Record<string, unknown> | undefined): GatewaySpan | undefined {
  return locals?.[ROUTING_SPAN] as GatewaySpan | undefined;
}
