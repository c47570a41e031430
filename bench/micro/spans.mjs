/**
 * The spans of one traced chat request (SERVER, routing, CLIENT, with the attributes a chat request sets), created
 * and ended through the SDK's tracer (what the gateway used before) and through the gateway's own `OtelSpan`
 * (src/observability/otel-span.ts), each handing its ended spans to a processor that drops them (export is
 * measured by the `otlp` group). And the request log's rollups of one full batch (500 rows).
 */
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

const serverAttributes = () => ({ 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'url.path': '/v1/chat/completions', 'gateway.request.id': 'e0a8a7a2-7b1c-4c9e-9a55-3f2f0d6c1b2a' });
const clientAttributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.max_tokens': 64, 'gateway.target.path': 'config', 'gateway.retry.attempt': 0 };
const answerAttributes = { 'http.response.status_code': 200, 'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.response.id': 'chatcmpl-000000000000000000000000000042', 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 19, 'gen_ai.usage.output_tokens': 31 };

/** Registers the tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { OtelSpan } = await dist('observability/otel-span.js');
  const { randomHex } = await dist('lib/ids.js');
  const { rollupRowsOf } = await dist('store/repos/request-log-rollups.js');
  let ended = 0;
  const processor = { onStart() {}, onEnd() { ended++; }, forceFlush: async () => {}, shutdown: async () => {} };
  const resource = resourceFromAttributes({ 'service.name': 'ai-gateway' });
  const tracer = new BasicTracerProvider({ resource, spanProcessors: [processor] }).getTracer('ai-gateway');
  bench.add('spans of one chat request, the SDK tracer (3 spans)', () => {
    const server = tracer.startSpan('POST /v1/chat/completions', { kind: SpanKind.SERVER });
    server.setAttributes(serverAttributes());
    const routing = tracer.startSpan('routing', { kind: SpanKind.INTERNAL }, trace.setSpan(ROOT_CONTEXT, server));
    routing.setAttributes({ 'gateway.endpoint': 'chat', 'gateway.config.id': undefined });
    const client = tracer.startSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, routing));
    client.setAttributes(clientAttributes);
    client.setAttributes(answerAttributes);
    client.end();
    routing.setAttributes({ 'gateway.target.path': 'config', 'gateway.attempts': 1 });
    routing.end();
    server.setAttributes({ 'http.response.status_code': 200 });
    server.end();
  });
  const sink = { resource, scope: { name: 'ai-gateway' }, processor, captureContent: false, attributeCountLimit: 128, attributeValueLengthLimit: Infinity };
  bench.add('spans of one chat request, the gateway\'s OtelSpan (3 spans)', () => {
    const server = new OtelSpan(sink, 'POST /v1/chat/completions', SpanKind.SERVER, { traceId: randomHex(16), spanId: randomHex(8), traceFlags: TraceFlags.SAMPLED }, undefined);
    server.set(serverAttributes());
    const routing = server.child('routing', 'internal', { 'gateway.endpoint': 'chat', 'gateway.config.id': undefined });
    const client = routing.child('chat gpt-4o-mini', 'client', clientAttributes);
    client.set(answerAttributes);
    client.end();
    routing.set({ 'gateway.target.path': 'config', 'gateway.attempts': 1 });
    routing.end();
    server.set({ 'http.response.status_code': 200 });
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
  return ended >= 0 ? [] : ['no span ended'];
}
