/**
 * OTLP protobuf encoding of a batch of the gateway's spans: our encoder (src/observability/otlp-span-encoder.ts)
 * beside the SDK's serializer, on the same 171 requests' spans (SERVER, routing, CLIENT each, the attributes
 * a chat request carries: 513 spans, about one full batch of the batch span processor).
 */
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

const REQUESTS = 171;

function gatewaySpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('ai-gateway');
  for (let i = 0; i < REQUESTS; i++) {
    const server = tracer.startSpan('POST /v1/chat/completions', {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'url.path': '/v1/chat/completions', 'gateway.request.id': crypto.randomUUID() },
    });
    const routing = tracer.startSpan('routing', { kind: SpanKind.INTERNAL, attributes: { 'gateway.endpoint': 'chat', 'gateway.target.path': 'config', 'gen_ai.provider.name': 'openai' } }, trace.setSpan(ROOT_CONTEXT, server));
    const client = tracer.startSpan(
      'chat gpt-4o-mini',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.max_tokens': 64, 'gateway.target.path': 'config', 'gateway.retry.attempt': 0 },
      },
      trace.setSpan(ROOT_CONTEXT, routing),
    );
    client.setAttributes({
      'http.response.status_code': 200,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': `chatcmpl-${String(i).padStart(29, '0')}`,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 19,
      'gen_ai.usage.output_tokens': 31,
    });
    client.end();
    routing.setAttributes({ 'gateway.attempts': 1, 'gateway.retries': 0 });
    routing.end();
    server.setAttribute('http.response.status_code', 200);
    server.end();
  }
  return exporter.getFinishedSpans();
}

/** The same requests' spans recorded by the gateway's own span (`OtelSpan`), as the gateway records them. */
function gatewayOtelSpans(OtelSpan, randomHex) {
  const ended = [];
  const sink = { resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }), scope: { name: 'ai-gateway' }, processor: { onEnd: (s) => ended.push(s) }, captureContent: false, attributeCountLimit: 128, attributeValueLengthLimit: Infinity };
  for (let i = 0; i < REQUESTS; i++) {
    const server = new OtelSpan(sink, 'POST /v1/chat/completions', SpanKind.SERVER, { traceId: randomHex(16), spanId: randomHex(8), traceFlags: 1 }, undefined);
    server.set({ 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'url.path': '/v1/chat/completions', 'gateway.request.id': crypto.randomUUID() });
    const routing = server.child('routing', 'internal', { 'gateway.endpoint': 'chat', 'gateway.target.path': 'config', 'gen_ai.provider.name': 'openai' });
    const client = routing.child('chat gpt-4o-mini', 'client', { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.max_tokens': 64, 'gateway.target.path': 'config', 'gateway.retry.attempt': 0 });
    client.set({
      'http.response.status_code': 200,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': `chatcmpl-${String(i).padStart(29, '0')}`,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 19,
      'gen_ai.usage.output_tokens': 31,
    });
    client.end();
    routing.set({ 'gateway.attempts': 1, 'gateway.retries': 0 });
    routing.end();
    server.set({ 'http.response.status_code': 200 });
    server.end();
  }
  return ended;
}

/** Registers the encoding tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { encodeTraceExport } = await dist('observability/otlp-span-encoder.js');
  const spans = gatewaySpans();
  const expected = ProtobufTraceSerializer.serializeRequest(spans).length;
  bench.add(`OTLP protobuf, SDK serializer: ${spans.length} spans of ${REQUESTS} chat requests (${expected} B)`, () => {
    if (ProtobufTraceSerializer.serializeRequest(spans).length !== expected) throw new Error('bad encoding');
  });
  bench.add(`OTLP protobuf, our encoder: the same ${spans.length} spans`, () => {
    if (encodeTraceExport(spans).length !== expected) throw new Error('bad encoding');
  });
  const { OtelSpan } = await dist('observability/otel-span.js');
  const { randomHex } = await dist('lib/ids.js');
  const ours = gatewayOtelSpans(OtelSpan, randomHex);
  const oursLength = ProtobufTraceSerializer.serializeRequest(ours).length;
  bench.add(`OTLP protobuf, our encoder: ${ours.length} spans of the gateway's OtelSpan, the same requests (${oursLength} B)`, () => {
    if (encodeTraceExport(ours).length !== oursLength) throw new Error('bad encoding');
  });
  return [];
}
