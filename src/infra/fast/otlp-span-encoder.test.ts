import { describe, expect, it } from 'vitest';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { encodeTraceExport } from './otlp-span-encoder.js';
import { decodeTraceExport } from '../../../test/fakes/otlp/trace-proto.js';

/** Finished spans of `run`, recorded by a provider of `service`. */
function spansOf(service: string, run: (provider: BasicTracerProvider) => void): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'service.instance.id': 'i-1', 'deployment.count': 3 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  run(provider);
  return exporter.getFinishedSpans();
}

/** The SDK's own serializer: the encoder must write exactly its bytes. */
const reference = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
const ours = (spans: ReadableSpan[]) => Buffer.from(encodeTraceExport(spans));

describe('encodeTraceExport', () => {
  it('writes the bytes of the SDK serializer for the gateway-like span tree', () => {
    const spans = spansOf('ai-gateway', (p) => {
      const tracer = p.getTracer('ai-gateway');
      const server = tracer.startSpan('POST /v1/chat/completions', {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': 'POST', 'url.path': '/v1/chat/completions' },
      });
      const routing = tracer.startSpan('routing', { kind: SpanKind.INTERNAL }, trace.setSpan(ROOT_CONTEXT, server));
      const client = tracer.startSpan(
        'chat gpt-4o-mini',
        {
          kind: SpanKind.CLIENT,
          attributes: { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.max_tokens': 64, 'gen_ai.request.temperature': 0.7 },
        },
        trace.setSpan(ROOT_CONTEXT, routing),
      );
      client.setAttributes({
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.input_tokens': 19,
        'http.response.status_code': 200,
      });
      client.end();
      routing.setAttribute('gateway.attempts', 1);
      routing.end();
      server.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream failed' });
      server.setAttribute('error.type', '502');
      server.end();
    });
    expect(spans).toHaveLength(3);
    expect(ours(spans).equals(reference(spans))).toBe(true);
    // And an independent decoder reads it (protobufjs with OTLP's messages).
    const decoded = decodeTraceExport(ours(spans));
    const names = decoded.resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.map((s) => s.name);
    expect(names).toEqual(['chat gpt-4o-mini', 'routing', 'POST /v1/chat/completions']);
  });

  it('writes every kind of value, event, link, remote parent and trace state as the SDK serializer does', () => {
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=a1,other=b2'),
    });
    const long = 'x'.repeat(300);
    const huge = 'y'.repeat(20_000);
    const spans = spansOf('svc', (p) => {
      const tracer = p.getTracer('scope-a', '1.2.3');
      const span = tracer.startSpan(
        'everything ✓',
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            ascii: 'plain',
            empty: '',
            accents: 'héllo wörld',
            emoji: 'tool 🔧 call',
            lone: 'bad \ud800 surrogate',
            // Each side of the encoder's thresholds (48 characters copied by hand, 42 written after a one-byte length).
            fortyEight: 'a'.repeat(48),
            fortyNine: 'b'.repeat(49),
            accentLate: `${'c'.repeat(47)}é`,
            fortyTwoWide: 'é'.repeat(42),
            fortyThreeWide: 'é'.repeat(43),
            longLone: `${'x'.repeat(30)}\udc00${'y'.repeat(30)}`,
            uuid: '571428b1-2ec4-49ca-9f99-85b66944bba9',
            long,
            huge,
            zero: 0,
            negative: -42,
            big: 2 ** 40 + 7,
            maxSafe: Number.MAX_SAFE_INTEGER,
            minSafe: Number.MIN_SAFE_INTEGER,
            double: 3.25,
            negDouble: -0.001,
            nan: Number.NaN,
            inf: Number.POSITIVE_INFINITY,
            yes: true,
            no: false,
            strings: ['a', 'é', ''],
            numbers: [1, -2, 3.5],
            bools: [true, false],
            holes: ['a', null, undefined, 'b'] as string[],
            emptyArray: [],
          },
          links: [
            {
              context: {
                traceId: '11111111111111111111111111111111',
                spanId: '2222222222222222',
                traceFlags: TraceFlags.NONE,
                isRemote: true,
                traceState: new TraceState('k=v'),
              },
              attributes: { reason: 'batch', n: 2 },
            },
          ],
        },
        remote,
      );
      span.addEvent('started', { step: 1, note: 'ok' });
      span.addEvent('plain');
      span.recordException(new Error('boom ✗'));
      span.setStatus({ code: SpanStatusCode.OK });
      span.end();
      // A second scope and a span without attributes.
      p.getTracer('scope-b').startSpan('bare').end();
      p.getTracer('scope-a', '1.2.3').startSpan('again', { kind: SpanKind.PRODUCER }).end();
    });
    const other = spansOf('another-service', (p) => p.getTracer('x').startSpan('elsewhere').end());
    const all = [...spans, ...other];
    expect(ours(all).equals(reference(all))).toBe(true);
    const decoded = decodeTraceExport(ours(all));
    expect(decoded.resourceSpans).toHaveLength(2);
  });

  it('writes ids of interleaved, repeated and upper-case trace ids, and repeated attribute names of every value kind, as the SDK serializer does', () => {
    const parentOf = (traceId: string, spanId: string) =>
      trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    const ids = [
      '0af7651916cd43dd8448eb211c80319c',
      'ABCDEF0123456789ABCDEF0123456789',
      '0af7651916cd43dd8448eb211c80319c',
      'abcdef0123456789abcdef0123456789',
    ];
    const spans = spansOf('ai-gateway', (p) => {
      const tracer = p.getTracer('ai-gateway');
      for (let round = 0; round < 3; round++) {
        for (const [i, traceId] of ids.entries()) {
          const values = [i, i % 2 === 0, `v${round}`, [i, round], 0.5 * i];
          tracer
            .startSpan(
              `s${i}`,
              {
                attributes: {
                  'gen_ai.usage.input_tokens': values[round % values.length] as never,
                  'http.response.status_code': 200 + i,
                  [`k${i}`]: i,
                },
              },
              parentOf(traceId, 'B7AD6B7169203331'),
            )
            .end();
        }
      }
    });
    expect(spans).toHaveLength(12);
    expect(ours(spans).equals(reference(spans))).toBe(true);
  });

  it('grows past its first buffer for a large batch and keeps each export its own', () => {
    const many = spansOf('ai-gateway', (p) => {
      const tracer = p.getTracer('ai-gateway');
      for (let i = 0; i < 600; i++) tracer.startSpan(`span ${i}`, { attributes: { i, text: 'z'.repeat(200 + (i % 50)) } }).end();
    });
    const first = encodeTraceExport(many);
    expect(first.length).toBeGreaterThan(64 * 1024);
    expect(Buffer.from(first).equals(reference(many))).toBe(true);
    const copy = Buffer.from(first);
    const small = spansOf('ai-gateway', (p) => p.getTracer('t').startSpan('next').end());
    expect(ours(small).equals(reference(small))).toBe(true);
    // The first export's bytes are not the encoder's buffer: writing the next one left them as they were.
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });

  it('writes remembered string attributes as the SDK serializer does, and stops remembering a name with many values', () => {
    const batch = (from: number) =>
      spansOf('ai-gateway', (p) => {
        const tracer = p.getTracer('ai-gateway');
        for (let i = from; i < from + 60; i++) {
          tracer
            .startSpan(`chat m${i % 3}`, {
              kind: SpanKind.CLIENT,
              attributes: {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': `m${i % 3}`,
                'gateway.request.id': `req-${i}`,
                'gateway.note': i % 2 ? 'é ünïcode' : 'ascii',
                'gen_ai.usage.input_tokens': i,
              },
            })
            .end();
        }
      });
    // The first batch fills the memory (and passes 32 request ids), the second is written from it.
    for (const spans of [batch(0), batch(60), batch(0)]) expect(ours(spans).equals(reference(spans))).toBe(true);
  });

  it('encodes nothing to an empty request', () => {
    expect(ours([]).equals(reference([]))).toBe(true);
    expect(ours([])).toHaveLength(0);
  });
});
