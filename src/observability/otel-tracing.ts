import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { GatewaySpan, SpanAttributes, Tracing, TracingOptions } from './tracing.js';

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

/**
 * A span just started, with its first attributes. Set on the span rather than given to `startSpan`: the SDK
 * copies and checks attributes given there twice (before and after the sampler; the built-in samplers do not read them) and
 * a third time as it stores them; `setAttributes` checks and stores them once.
 */
function started(span: Span, attributes: SpanAttributes | undefined): Span {
  if (attributes) span.setAttributes(attributes);
  return span;
}

/** A `GatewaySpan` over an SDK span. */
class OtelSpan implements GatewaySpan {
  private ended = false;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    readonly captureContent: boolean,
  ) {}

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  child(name: string, kind: 'internal' | 'client', attributes?: SpanAttributes): GatewaySpan {
    const parent = trace.setSpan(ROOT_CONTEXT, this.span);
    return new OtelSpan(this.tracer, started(this.tracer.startSpan(name, { kind: KINDS[kind] }, parent), attributes), this.captureContent);
  }

  set(attributes: SpanAttributes): void {
    // The SDK skips undefined values itself (`setAttribute` returns on `value == null`): no copy without them.
    this.span.setAttributes(attributes);
  }

  fail(code: string, message?: string): void {
    this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end();
  }
}

/**
 * The OTLP/HTTP exporter of `options.protocol`, only its own modules loaded. Protobuf is the default: the
 * exporter's transport, settings (`OTEL_EXPORTER_OTLP_*` headers, timeout, compression) and retries are the
 * SDK's (`@opentelemetry/otlp-exporter-base`, as its own protobuf exporter builds them); the bytes are
 * written by `encodeTraceExport` (the same bytes as the SDK's serializer, at a fraction of its CPU:
 * otlp-span-encoder.ts). JSON goes through the SDK's JSON exporter as it is.
 */
async function exporterOf(options: TracingOptions): Promise<SpanExporter> {
  if (options.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: options.endpoint });
  }
  const [{ OTLPExporterBase }, { createOtlpHttpExportDelegate, convertLegacyHttpOptions }, { ProtobufTraceSerializer, TraceExporterMetricsHelper }, { encodeTraceExport }] =
    await Promise.all([
      import('@opentelemetry/otlp-exporter-base'),
      import('@opentelemetry/otlp-exporter-base/node-http'),
      import('@opentelemetry/otlp-transformer'),
      import('./otlp-span-encoder.js'),
    ]);
  const serializer = { serializeRequest: encodeTraceExport, deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data) };
  const settings = convertLegacyHttpOptions({ url: options.endpoint }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  return new OTLPExporterBase(createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined));
}

/**
 * The OpenTelemetry tracer of the gateway: spans exported in batches over OTLP/HTTP (protobuf or JSON,
 * `options.protocol`) to `options.endpoint`, resource `service.name=ai-gateway`. An incoming W3C
 * `traceparent` makes the request's SERVER span a child of the caller's span (same trace id).
 */
export async function createOtelTracing(options: TracingOptions): Promise<Tracing> {
  const exporter = await exporterOf(options);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.scheduleDelayMs })],
  });
  const tracer = provider.getTracer('ai-gateway');
  const propagator = new W3CTraceContextPropagator();
  return {
    captureContent: options.captureContent,
    startRequest(name, headers, attributes) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      return new OtelSpan(tracer, started(tracer.startSpan(name, { kind: SpanKind.SERVER }, parent), attributes), options.captureContent);
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
