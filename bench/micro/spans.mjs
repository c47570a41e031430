/**
 * The spans of one traced chat request (SERVER, routing, CLIENT, with the attributes a chat request sets), created
 * and ended through the SDK's tracer (what the gateway used before) and through the gateway's own `OtelSpan`
 * (src/infra/observability/otel-span.ts), each handing its ended spans to a processor that drops them (export is
 * measured by the `otlp` group). And the request log's rollups of one full batch (500 rows).
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { chatRequestAttributes, otelChatSpans, sdkChatSpans } from './otlp.mjs';

/** Registers the tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { OtelSpan } = await dist('infra/observability/otel-span.js');
  const { randomHex } = await dist('foundation/lib/ids.js');
  const { rollupRowsOf } = await dist('infra/store/repos/request-log-rollups.js');
  const processor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
  const resource = resourceFromAttributes({ 'service.name': 'ai-gateway' });
  const tracer = new BasicTracerProvider({ resource, spanProcessors: [processor] }).getTracer('ai-gateway');
  const a = chatRequestAttributes(42);
  bench.add('spans of one chat request, the SDK tracer (3 spans)', () => sdkChatSpans(tracer, a));
  const sink = {
    resource,
    scope: { name: 'ai-gateway' },
    processor,
    captureContent: false,
    attributeCountLimit: 128,
    attributeValueLengthLimit: Infinity,
  };
  bench.add("spans of one chat request, the gateway's OtelSpan (3 spans)", () => otelChatSpans(OtelSpan, randomHex, sink, a));

  const now = Date.now();
  const rows = Array.from({ length: 500 }, (_, i) => ({
    organisation_id: 'org-default',
    workspace_id: 'ws-default',
    api_key_id: 'key-1',
    user_id: 'user-1',
    endpoint: 'chat',
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    cache_status: null,
    config_id: null,
    prompt_id: null,
    cost: 0.00012,
    total_tokens: 50,
    prompt_tokens: 19,
    completion_tokens: 31,
    latency_ms: 2 + (i % 7),
    created_at: now + i * 2,
  }));
  bench.add('request-log rollups of one batch (500 rows of one kind over 1 s)', () => {
    if (rollupRowsOf(rows).cube.length === 0) throw new Error('no rollups');
  });
  return [];
}
