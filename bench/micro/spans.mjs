/**
 * The spans of one traced chat request (SERVER, routing, CLIENT, with the attributes a chat request sets), created
 * and ended through the SDK's tracer (what the gateway used before) and through the gateway's own `OtelSpan`
 * (src/observability/otel-span.ts), each handing its ended spans to a processor that drops them (export is
 * measured by the `otlp` group). And the request log's rollups of one full batch (500 rows).
 */
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { chatRequestAttributes } from './otlp.mjs';

/** Registers the tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { OtelSpan } = await dist('observability/otel-span.js');
  const { randomHex } = await dist('lib/ids.js');
  const { rollupRowsOf } = await dist('store/repos/request-log-rollups.js');
  const processor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
  const resource = resourceFromAttributes({ 'service.name': 'ai-gateway' });
  const tracer = new BasicTracerProvider({ resource, spanProcessors: [processor] }).getTracer('ai-gateway');
  const a = chatRequestAttributes(42);
  bench.add('spans of one chat request, the SDK tracer (3 spans)', () => {
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
  });
  const sink = { resource, scope: { name: 'ai-gateway' }, processor, captureContent: false, attributeCountLimit: 128, attributeValueLengthLimit: Infinity };
  bench.add('spans of one chat request, the gateway\'s OtelSpan (3 spans)', () => {
    const server = new OtelSpan(sink, 'POST /v1/chat/completions', SpanKind.SERVER, { traceId: randomHex(16), spanId: randomHex(8), traceFlags: TraceFlags.SAMPLED }, undefined);
    server.set(a.server);
    const routing = server.child('routing', 'internal', a.routing);
    const client = routing.child('chat gpt-4o-mini', 'client', a.client);
    client.set(a.answer);
    client.end();
    routing.set(a.routingEnd);
    routing.end();
    server.set(a.serverEnd);
    server.end();
  });

  const now = Date.now();
  const rows = Array.from({ length: 500 }, (_, i) => ({
    organisation_id: 'org-default', workspace_id: 'ws-default', api_key_id: 'key-1', user_id: 'user-1', endpoint: 'chat', provider: 'openai', model: 'gpt-4o-mini',
    status: 200, cache_status: null, config_id: null, prompt_id: null, cost: 0.00012, total_tokens: 50, prompt_tokens: 19, completion_tokens: 31, latency_ms: 2 + (i % 7), created_at: now + i * 2,
  }));
  bench.add('request-log rollups of one batch (500 rows of one kind over 1 s)', () => {
    if (rollupRowsOf(rows).cube.length === 0) throw new Error('no rollups');
  });
  return [];
}
