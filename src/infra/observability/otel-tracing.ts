import { ROOT_CONTEXT, SpanKind, TraceFlags, isSpanContextValid, trace, type SpanContext, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
// The SDK's own reading of the span limits, OTEL_SPAN_ATTRIBUTE_* then OTEL_ATTRIBUTE_* (what its BasicTracerProvider is configured from).
import { reconfigureLimits } from '@opentelemetry/sdk-trace-base/build/src/utility.js';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { randomHex } from '../../foundation/lib/ids.js';
import { OtelSpan, UnsampledSpan, type SpanSink } from './otel-span.js';
import type { Tracing, TracingOptions } from './tracing.js';
import type { TraceSamplerSetting } from './trace-sampler-setting.js';

/** The SDK's sampler of `setting` (as its BasicTracerProvider builds it from `OTEL_TRACES_SAMPLER`). */
export function samplerOf(setting: TraceSamplerSetting): Sampler {
  switch (setting.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(setting.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
  }
}

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

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
  const [
    { OTLPExporterBase },
    { createOtlpHttpExportDelegate, convertLegacyHttpOptions },
    { ProtobufTraceSerializer, TraceExporterMetricsHelper },
    { encodeTraceExport },
  ] = await Promise.all([
    import('@opentelemetry/otlp-exporter-base'),
    import('@opentelemetry/otlp-exporter-base/node-http'),
    import('@opentelemetry/otlp-transformer'),
    import('../fast/otlp-span-encoder.js'),
  ]);
  const serializer = {
    serializeRequest: encodeTraceExport,
    deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
  };
  const settings = convertLegacyHttpOptions({ url: options.endpoint }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined),
  );
}

/**
 * The OpenTelemetry tracer of the gateway: spans exported in batches over OTLP/HTTP (protobuf or JSON,
 * `options.protocol`) to `options.endpoint`, resource `service.name=ai-gateway`. An incoming W3C
 * `traceparent` makes the request's SERVER span a child of the caller's span (same trace id).
 *
 * The spans are the gateway's own (`OtelSpan`, otel-span.ts: the SDK's span cost more than the rest of the
 * tracing); what happens to them is the SDK's: its sampler of `options.sampler` (`OTEL_TRACES_SAMPLER`) decides per request (on
 * the SERVER span; its children follow), its `BatchSpanProcessor` queues, batches and exports them, its
 * propagator reads `traceparent` and `tracestate`, its span limits apply.
 */
export async function createOtelTracing(options: TracingOptions): Promise<Tracing> {
  const exporter = await exporterOf(options);
  const sampler = samplerOf(options.sampler);
  const limits = reconfigureLimits({}).spanLimits ?? {};
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.scheduleDelayMs });
  const sink: SpanSink = {
    resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }),
    scope: { name: 'ai-gateway' },
    processor,
    captureContent: options.captureContent,
    attributeCountLimit: limits.attributeCountLimit ?? 128,
    attributeValueLengthLimit: limits.attributeValueLengthLimit ?? Infinity,
  };
  const propagator = new W3CTraceContextPropagator();
  return {
    captureContent: options.captureContent,
    startRequest(name, headers, attributes) {
      let context = ROOT_CONTEXT;
      let parent: SpanContext | undefined;
      if (headers.traceparent !== undefined) {
        context = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
        parent = trace.getSpanContext(context);
        if (parent && !isSpanContextValid(parent)) parent = undefined;
      }
      const traceId = parent ? parent.traceId : randomHex(16);
      const sampled = sampler.shouldSample(context, traceId, name, SpanKind.SERVER, attributes as never, []);
      if (sampled.decision !== SamplingDecision.RECORD_AND_SAMPLED) return new UnsampledSpan(traceId, options.captureContent);
      const span = new OtelSpan(
        sink,
        name,
        SpanKind.SERVER,
        { traceId, spanId: randomHex(8), traceFlags: TraceFlags.SAMPLED, traceState: sampled.traceState ?? parent?.traceState },
        parent,
      );
      span.set(attributes);
      if (sampled.attributes) span.set(sampled.attributes as never);
      return span;
    },
    async shutdown() {
      await processor.shutdown();
    },
  };
}
