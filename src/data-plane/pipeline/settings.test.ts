import { describe, expect, it } from 'vitest';
import { readSettings } from './settings.js';

describe('tracing settings', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' };

  it('exports to <endpoint>/v1/traces over http/protobuf unless a protocol says otherwise', () => {
    expect(readSettings({}).tracing).toBeUndefined();
    expect(readSettings(endpoint).tracing).toMatchObject({ endpoint: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/protobuf', scheduleDelayMs: 1000 });
    expect(readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.protocol).toBe('http/json');
    // The traces-specific variable wins over the general one, as in the OpenTelemetry SDKs.
    expect(readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).tracing?.protocol).toBe('http/protobuf');
  });

  it('refuses a protocol it cannot speak, naming the variable', () => {
    expect(() => readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: expected 'http\/protobuf' or 'http\/json' \(gRPC is not supported\), got 'grpc'/);
    expect(() => readSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
  });
});

describe('request log settings', () => {
  it('writes batches every 250 ms unless GATEWAY_REQUEST_LOG_FLUSH_MS says otherwise', () => {
    expect(readSettings({}).requestLogFlushMs).toBe(250);
    expect(readSettings({ GATEWAY_REQUEST_LOG_FLUSH_MS: '5000' }).requestLogFlushMs).toBe(5000);
  });

  it('refuses a flush interval that is not a whole number of milliseconds in range', () => {
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(() => readSettings({ GATEWAY_REQUEST_LOG_FLUSH_MS: bad })).toThrow(/Expected a timeout of 1 to/);
  });
});

describe('MCP settings', () => {
  it('closes idle MCP upstream connections after an hour unless GATEWAY_MCP_SESSION_IDLE_TTL_S says otherwise', () => {
    expect(readSettings({}).mcpSessionIdleTtlMs).toBe(3_600_000);
    expect(readSettings({ GATEWAY_MCP_SESSION_IDLE_TTL_S: '60' }).mcpSessionIdleTtlMs).toBe(60_000);
  });

  it('refuses an idle time that is not a whole number of seconds from 1 to 30 days, naming the variable', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '2592001']) expect(() => readSettings({ GATEWAY_MCP_SESSION_IDLE_TTL_S: bad })).toThrow(/GATEWAY_MCP_SESSION_IDLE_TTL_S: expected a whole number of seconds/);
  });
});
