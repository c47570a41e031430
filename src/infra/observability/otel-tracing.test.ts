import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOtlpReceiver } from '../../../test/fakes/otlp/server.js';
import { createOtelTracing } from './otel-tracing.js';

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
    const tracing = await createOtelTracing({ endpoint: `${receiver.url}/v1/traces`, protocol: 'http/protobuf', captureContent: false, scheduleDelayMs: 10 }).finally(() => {
      delete process.env.OTEL_ATTRIBUTE_COUNT_LIMIT;
      delete process.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT;
    });
    const traceId = '7cf92f3577b34da6a3ce929d0e0e4739';
    const span = tracing.startRequest('POST /v1/chat/completions', { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'vendor=a1' }, { a: 'abcdef', b: 1, c: true });
    span.child('routing', 'internal', { d: 'x' }).end();
    span.end();
    await tracing.shutdown();
    const spans = await receiver.trace(traceId, 2);
    const server = spans.find((s) => s.name === 'POST /v1/chat/completions')!;
    expect(server).toMatchObject({ parentSpanId: '00f067aa0ba902b7', attributes: { a: 'abc', b: 1 } });
    expect(Object.keys(server.attributes)).toEqual(['a', 'b']);
    expect(spans.find((s) => s.name === 'routing')).toMatchObject({ parentSpanId: server.spanId, attributes: { d: 'x' } });
  });
});
