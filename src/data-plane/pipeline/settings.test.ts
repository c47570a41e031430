import { describe, expect, it } from 'vitest';
import { readSettings } from './settings.js';

describe('tracing settings', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' };

  it('exports to <endpoint>/v1/traces over http/protobuf unless a protocol says otherwise', () => {
    expect(readSettings({}).tracing).toBeUndefined();
    expect(readSettings(endpoint).tracing).toMatchObject({
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      scheduleDelayMs: 1000,
    });
    expect(readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.protocol).toBe('http/json');
    // The traces-specific variable wins over the general one, as in the OpenTelemetry SDKs.
    expect(
      readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).tracing
        ?.protocol,
    ).toBe('http/protobuf');
  });

  it('refuses a protocol it cannot speak, naming the variable', () => {
    expect(() => readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: expected 'http\/protobuf' or 'http\/json' \(gRPC is not supported\), got 'grpc'/,
    );
    expect(() => readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
  });

  it('reads the standard sampler variables: parentbased_always_on by default, the ratio only for the traceidratio samplers', () => {
    expect(readSettings(endpoint).tracing?.sampler).toEqual({ name: 'parentbased_always_on', ratio: 1 });
    expect(
      readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).tracing?.sampler,
    ).toEqual({ name: 'parentbased_traceidratio', ratio: 0.1 });
    expect(readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'TraceIdRatio' }).tracing?.sampler).toEqual({ name: 'traceidratio', ratio: 1 });
    expect(readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: 'ignored' }).tracing?.sampler).toEqual({
      name: 'always_off',
      ratio: 1,
    });
    for (const name of ['always_on', 'parentbased_always_off', 'traceidratio'])
      expect(readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: name }).tracing?.sampler.name).toBe(name);
  });

  it('refuses an unknown sampler or a ratio outside [0, 1], naming the variable', () => {
    expect(() => readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(
      /OTEL_TRACES_SAMPLER: expected one of always_on, .*, got 'jaeger_remote'/,
    );
    expect(() => readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG: expected a probability from 0 to 1 for traceidratio, got '10%'/,
    );
    expect(() => readSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });

  it('traces nothing with OTEL_SDK_DISABLED=true (any case), whatever the endpoint', () => {
    expect(readSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(readSettings({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeUndefined();
    expect(readSettings({ ...endpoint, OTEL_SDK_DISABLED: 'false' }).tracing?.endpoint).toBe('http://127.0.0.1:4318/v1/traces');
  });
});

describe('request log settings', () => {
  it('writes batches every 250 ms unless GATEWAY_REQUEST_LOG_FLUSH_MS says otherwise', () => {
    expect(readSettings({}).requestLogFlushMs).toBe(250);
    expect(readSettings({ GATEWAY_REQUEST_LOG_FLUSH_MS: '5000' }).requestLogFlushMs).toBe(5000);
  });

  it('refuses a flush interval that is not a whole number of milliseconds in range', () => {
    for (const bad of ['0', '-5', '1.5', 'soon'])
      expect(() => readSettings({ GATEWAY_REQUEST_LOG_FLUSH_MS: bad })).toThrow(/Expected a timeout of 1 to/);
  });
});

describe('MCP settings', () => {
  it('closes idle MCP upstream connections after an hour unless GATEWAY_MCP_SESSION_IDLE_TTL_S says otherwise', () => {
    expect(readSettings({}).mcpSessionIdleTtlMs).toBe(3_600_000);
    expect(readSettings({ GATEWAY_MCP_SESSION_IDLE_TTL_S: '60' }).mcpSessionIdleTtlMs).toBe(60_000);
  });

  it('refuses an idle time that is not a whole number of seconds from 1 to 30 days, naming the variable', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '2592001'])
      expect(() => readSettings({ GATEWAY_MCP_SESSION_IDLE_TTL_S: bad })).toThrow(
        /GATEWAY_MCP_SESSION_IDLE_TTL_S: expected a whole number of seconds/,
      );
  });
});

describe('background work settings', () => {
  it('defaults the clocks of the background work and takes each from its variable', () => {
    expect(readSettings({})).toMatchObject({ runtimePollMs: 500, keyLastUsedFlushMs: 5_000, eventLoopMonitorMs: 100 });
    expect(
      readSettings({
        GATEWAY_RUNTIME_POLL_MS: '600000',
        GATEWAY_KEY_LAST_USED_FLUSH_MS: '600000',
        GATEWAY_EVENT_LOOP_MONITOR_MS: '600000',
      }),
    ).toMatchObject({ runtimePollMs: 600_000, keyLastUsedFlushMs: 600_000, eventLoopMonitorMs: 600_000 });
    expect(() => readSettings({ GATEWAY_EVENT_LOOP_MONITOR_MS: '0' })).toThrow(/Expected a timeout of 1/);
  });
});
