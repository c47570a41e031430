import type { Tracing, TracingOptions } from './tracing.js';

/**
 * Loads OpenTelemetry only when an OTLP endpoint is configured (a dynamic import: a gateway without
 * one never loads the SDK, and its requests carry no span).
 */
export async function loadTracing(options: TracingOptions | undefined): Promise<Tracing | undefined> {
  if (!options) return undefined;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing(options);
}
