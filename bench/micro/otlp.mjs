/**
 * OTLP protobuf encoding of a batch of the gateway's spans: our encoder (src/infra/fast/otlp-span-encoder.ts)
 * beside the SDK's serializer, on the same 171 requests' spans (SERVER, routing, CLIENT each, the attributes
 * a chat request carries: 513 spans, about one full batch of the batch span processor).
 */
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

const REQUESTS = 171;

/**
 * The attributes the gateway sets on a chat request's spans (request `i` of a batch), in the order it sets them:
 * the SERVER span's at start and at the answer, the routing span's at start and at the end, the CLIENT span's at
 * start and with the answer. Shared by the span builders here and in `spans.mjs`.
 */
export function chatRequestAttributes(i) {
  return {
    server: {
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'url.path': '/v1/chat/completions',
      'gateway.request.id': crypto.randomUUID(),
    },
    serverEnd: { 'http.response.status_code': 200 },
    routing: { 'gateway.endpoint': 'chat', 'gateway.target.path': 'config', 'gen_ai.provider.name': 'openai' },
    routingEnd: { 'gateway.attempts': 1, 'gateway.retries': 0 },
    client: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': 64,
      'gateway.target.path': 'config',
      'gateway.retry.attempt': 0,
    },
    answer: {
      'http.response.status_code': 200,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': `chatcmpl-${String(i).padStart(29, '0')}`,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 19,
      'gen_ai.usage.output_tokens': 31,
    },
  };
}

function gatewaySpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('ai-gateway');
  for (let i = 0; i < REQUESTS; i++) sdkChatSpans(tracer, chatRequestAttributes(i));
  return exporter.getFinishedSpans();
}

/** The same requests' spans recorded by the gateway's own span (`OtelSpan`), as the gateway records them. */
function gatewayOtelSpans(OtelSpan, randomHex) {
  const ended = [];
  const sink = {
    resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }),
    scope: { name: 'ai-gateway' },
    processor: { onEnd: (s) => ended.push(s) },
    captureContent: false,
    attributeCountLimit: 128,
    attributeValueLengthLimit: Infinity,
  };
  for (let i = 0; i < REQUESTS; i++) otelChatSpans(OtelSpan, randomHex, sink, chatRequestAttributes(i));
  return ended;
}

/** One chat request's three spans (SERVER, routing, CLIENT) through the SDK's tracer, set and ended as the gateway did. */
export function sdkChatSpans(tracer, a) {
  const server = tracer.startSpan('POST /v1/chat/completions', { kind: SpanKind.SERVER });
  server.setAttributes(a.server);
  const routing = tracer.startSpan('routing', { kind: SpanKind.INTERNAL }, trace.setSpan(ROOT_CONTEXT, server));
  routing.setAttributes(a.routing);
  const client = tracer.startSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, routing));
  client.setAttributes(a.client);
  client.setAttributes(a.answer);
  client.end();
  routing.setAttributes(a.routingEnd);
  routing.end();
  server.setAttributes(a.serverEnd);
  server.end();
}

/** The same spans through the gateway's `OtelSpan` (its class and `randomHex` from dist/), ended into `sink`. */
export function otelChatSpans(OtelSpan, randomHex, sink, a) {
  const server = new OtelSpan(
    sink,
    'POST /v1/chat/completions',
    SpanKind.SERVER,
    { traceId: randomHex(16), spanId: randomHex(8), traceFlags: TraceFlags.SAMPLED },
    undefined,
  );
  server.set(a.server);
  const routing = server.child('routing', 'internal', a.routing);
  const client = routing.child('chat gpt-4o-mini', 'client', a.client);
  client.set(a.answer);
  client.end();
  routing.set(a.routingEnd);
  routing.end();
  server.set(a.serverEnd);
  server.end();
}

/** Registers the encoding tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { encodeTraceExport } = await dist('infra/fast/otlp-span-encoder.js');
  const spans = gatewaySpans();
  const expected = ProtobufTraceSerializer.serializeRequest(spans).length;
  bench.add(`OTLP protobuf, SDK serializer: ${spans.length} spans of ${REQUESTS} chat requests (${expected} B)`, () => {
    if (ProtobufTraceSerializer.serializeRequest(spans).length !== expected) throw new Error('bad encoding');
  });
  bench.add(`OTLP protobuf, our encoder: the same ${spans.length} spans`, () => {
    if (encodeTraceExport(spans).length !== expected) throw new Error('bad encoding');
  });
  const { OtelSpan } = await dist('infra/observability/otel-span.js');
  const { randomHex } = await dist('foundation/lib/ids.js');
  const ours = gatewayOtelSpans(OtelSpan, randomHex);
  const oursLength = ProtobufTraceSerializer.serializeRequest(ours).length;
  bench.add(`OTLP protobuf, our encoder: ${ours.length} spans of the gateway's OtelSpan, the same requests (${oursLength} B)`, () => {
    if (encodeTraceExport(ours).length !== oursLength) throw new Error('bad encoding');
  });
  return [];
}
