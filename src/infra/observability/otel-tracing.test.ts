import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOtlpReceiver } from '../../../test/fakes/otlp/server.js';
import { createOtelTracing } from './otel-tracing.js';
import { OtelSpan } from './otel-span.js';
import type { TraceSamplerName } from './trace-sampler-setting.js';

describe('createOtelTracing', () => {
  let receiver: FakeOtlpReceiver;
  beforeAll(async () => {
    receiver = await new FakeOtlpReceiver().start();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('applies the SDK span limits of the environment (OTEL_ATTRIBUTE_COUNT_LIMIT when no span-specific one) and joins a traceparent', async () => {
    process.env.OTEL_ATTRIBUTE_COUNT_LIMIT = '2';
    process.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT = '3';
    const tracing = await createOtelTracing({
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'http/protobuf',
      captureContent: false,
      scheduleDelayMs: 10,
      sampler: { name: 'parentbased_always_on', ratio: 1 },
    }).finally(() => {
      delete process.env.OTEL_ATTRIBUTE_COUNT_LIMIT;
      delete process.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT;
    });
    const traceId = '7cf92f3577b34da6a3ce929d0e0e4739';
    const span = tracing.startRequest(
      'POST /v1/chat/completions',
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'vendor=a1' },
      { a: 'abcdef', b: 1, c: true },
    );
    span.child('routing', 'internal', { d: 'x' }).end();
    span.end();
    await tracing.shutdown();
    const spans = await receiver.trace(traceId, 2);
    const server = spans.find((s) => s.name === 'POST /v1/chat/completions')!;
    expect(server).toMatchObject({ parentSpanId: '00f067aa0ba902b7', attributes: { a: 'abc', b: 1 } });
    expect(Object.keys(server.attributes)).toEqual(['a', 'b']);
    expect(spans.find((s) => s.name === 'routing')).toMatchObject({ parentSpanId: server.spanId, attributes: { d: 'x' } });
  });

  const parent = (flags: '00' | '01') => ({ traceparent: `00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags}` });
  it.each<[TraceSamplerName, number, boolean, boolean, boolean]>([
    // sampler, ratio, root sampled (at ratio 1 / 0), under a sampled parent, under an unsampled parent
    ['always_on', 1, true, true, true],
    ['always_off', 1, false, false, false],
    ['parentbased_always_on', 1, true, true, false],
    ['parentbased_always_off', 1, false, true, false],
    ['traceidratio', 1, true, true, true],
    ['traceidratio', 0, false, false, false],
    ['parentbased_traceidratio', 1, true, true, false],
    ['parentbased_traceidratio', 0, false, true, false],
  ])(
    'samples with %s (ratio %s): a root %s, under a sampled parent %s, under an unsampled one %s',
    async (name, ratio, root, underSampled, underUnsampled) => {
      const tracing = await createOtelTracing({
        endpoint: `${receiver.url}/v1/traces`,
        protocol: 'http/protobuf',
        captureContent: false,
        scheduleDelayMs: 10,
        sampler: { name, ratio },
      });
      const sampled = (headers: Record<string, string>) => {
        const span = tracing.startRequest('POST /v1/chat/completions', headers, {});
        span.end();
        return span instanceof OtelSpan;
      };
      expect([sampled({}), sampled(parent('01')), sampled(parent('00'))]).toEqual([root, underSampled, underUnsampled]);
      await tracing.shutdown();
    },
  );

  it('keeps about the ratio of root traces with traceidratio, the same decision for a trace id every time', async () => {
    for (const name of ['traceidratio', 'parentbased_traceidratio'] as const) {
      const tracing = await createOtelTracing({
        endpoint: `${receiver.url}/v1/traces`,
        protocol: 'http/protobuf',
        captureContent: false,
        scheduleDelayMs: 10,
        sampler: { name, ratio: 0.1 },
      });
      let kept = 0;
      for (let i = 0; i < 4000; i++) {
        const span = tracing.startRequest('GET /v1/models', {}, {});
        if (span instanceof OtelSpan) kept++;
        span.end();
      }
      // Binomial(4000, 0.1): mean 400, standard deviation 19; 300-500 is more than five of them either side.
      expect(kept).toBeGreaterThan(300);
      expect(kept).toBeLessThan(500);
      await tracing.shutdown();
    }
  });
});
