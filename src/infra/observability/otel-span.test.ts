import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { hrTimeToNanoseconds, TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OtelSpan, UnsampledSpan, type SpanSink } from './otel-span.js';
import { encodeTraceExport } from '../fast/otlp-span-encoder.js';

/** A sink that keeps the ended spans. */
function sinkOf(
  limits: Partial<Pick<SpanSink, 'attributeCountLimit' | 'attributeValueLengthLimit'>> = {},
): SpanSink & { ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return {
    ended,
    resource: resourceFromAttributes({ 'service.name': 'ai-gateway' }),
    scope: { name: 'ai-gateway' },
    processor: { onEnd: (span) => void ended.push(span) },
    captureContent: false,
    attributeCountLimit: limits.attributeCountLimit ?? 128,
    attributeValueLengthLimit: limits.attributeValueLengthLimit ?? Infinity,
  };
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const server = (sink: SpanSink, parent?: OtelSpan['parentSpanContext']) =>
  new OtelSpan(
    sink,
    'POST /v1/chat/completions',
    SpanKind.SERVER,
    { traceId: TRACE, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, traceState: parent?.traceState },
    parent,
  );

describe('OtelSpan', () => {
  it('is a ReadableSpan the SDK serializers read: the protobuf encoder writes what the SDK serializer writes for it, and JSON reads its tree', () => {
    const sink = sinkOf();
    const remote = {
      traceId: TRACE,
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=a1'),
    };
    const root = server(sink, remote);
    root.set({ 'http.request.method': 'POST', 'url.path': '/v1/chat/completions', skipped: undefined });
    const routing = root.child('routing', 'internal', { 'gateway.endpoint': 'chat' });
    const client = routing.child('chat gpt-4o-mini', 'client', {
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': 64,
      'gen_ai.request.temperature': 0.7,
    });
    client.set({ 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 19 });
    client.fail('provider_error', 'upstream failed');
    client.end();
    routing.end();
    root.fail('502');
    root.end();
    const spans = sink.ended;
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'routing', 'POST /v1/chat/completions']);
    expect(Buffer.from(encodeTraceExport(spans)).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!))).toBe(true);

    const json = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString()) as {
      resourceSpans: Array<{
        scopeSpans: Array<{
          scope: { name: string };
          spans: Array<{
            name: string;
            traceId: string;
            spanId: string;
            parentSpanId?: string;
            kind: number;
            traceState?: string;
            status: { code: number; message?: string };
            attributes: Array<{ key: string }>;
          }>;
        }>;
      }>;
    };
    const [c, r, s] = json.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(json.resourceSpans[0]!.scopeSpans[0]!.scope.name).toBe('ai-gateway');
    expect(s).toMatchObject({
      traceId: TRACE,
      parentSpanId: 'b7ad6b7169203331',
      kind: SpanKind.SERVER + 1,
      traceState: 'vendor=a1',
      status: { code: SpanStatusCode.ERROR },
    });
    expect(s!.attributes.map((a) => a.key)).toEqual(['http.request.method', 'url.path', 'error.type']);
    expect(r).toMatchObject({ traceId: TRACE, parentSpanId: s!.spanId, kind: SpanKind.INTERNAL + 1 });
    expect(c).toMatchObject({
      traceId: TRACE,
      parentSpanId: r!.spanId,
      kind: SpanKind.CLIENT + 1,
      status: { code: SpanStatusCode.ERROR, message: 'upstream failed' },
    });
    expect(new Set([s!.spanId, r!.spanId, c!.spanId]).size).toBe(3);
    for (const id of [r!.spanId, c!.spanId]) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is written on the epoch clock exactly as the SDK serializer writes its start and end times, whatever the reading', () => {
    const sink = sinkOf();
    const readings = [0, 0.0004, 0.0005, 1, 999.9999996, 999.9999994, 1000, 12_345.678_901_2, 86_400_000.123_456_7, 3.6e9 + 0.999_999_9];
    for (let i = 0; i < 200; i++) readings.push(Math.random() * 1e7);
    const open = server(sink);
    for (const reading of readings) {
      const span = server(sink);
      Object.assign(span, { startAt: reading });
      span.end();
      span.endAt = reading + 0.5;
    }
    const spans = [...sink.ended, open];
    expect(Buffer.from(encodeTraceExport(spans)).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!))).toBe(true);
  });

  it('times itself from start to end, on the epoch clock', () => {
    const sink = sinkOf();
    const before = Date.now();
    const span = server(sink);
    const t = performance.now();
    while (performance.now() - t < 3);
    span.end();
    const start = hrTimeToNanoseconds(span.startTime) / 1e6;
    expect(Math.abs(start - before)).toBeLessThan(50);
    expect(hrTimeToNanoseconds(span.duration)).toBeGreaterThanOrEqual(3e6);
    // (Epoch nanoseconds pass 2^53: compared within a microsecond.)
    expect(
      Math.abs(hrTimeToNanoseconds(span.endTime) - hrTimeToNanoseconds(span.startTime) - hrTimeToNanoseconds(span.duration)),
    ).toBeLessThan(1000);
  });

  it('keeps valid values only, within the count limit (dropped counted) and cut to the length limit; nothing changes once ended', () => {
    const sink = sinkOf({ attributeCountLimit: 3, attributeValueLengthLimit: 4 });
    const span = server(sink);
    span.set({ a: 'abcdefgh', b: ['abcdefgh', 'xy'], bad: [1, 'mixed'] as unknown as string[] });
    span.set({ a: 'again', c: 3, d: true, e: 'over' });
    expect(span.attributes).toEqual({ a: 'agai', b: ['abcd', 'xy'], c: 3 });
    expect(span.droppedAttributesCount).toBe(2);
    span.end();
    span.set({ a: 'late' });
    span.fail('late');
    span.end();
    expect(span.attributes.a).toBe('agai');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(sink.ended).toHaveLength(1);
  });

  it('an unsampled span keeps its trace id, records nothing and is its own child', () => {
    const span = new UnsampledSpan(TRACE, true);
    expect(span.child()).toBe(span);
    span.set();
    span.end();
    expect(span).toMatchObject({ traceId: TRACE, captureContent: true });
  });
});
