/** The samplers `OTEL_TRACES_SAMPLER` may name (OpenTelemetry's SDK environment variables, the ones the JS SDK ships). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** One of {@link TRACE_SAMPLERS}. */
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/** The sampler the tracer is built with: its name and, for the `traceidratio` ones, the share of traces kept. */
export interface TraceSamplerSetting {
  name: TraceSamplerName;
  /** Probability in [0, 1] (`OTEL_TRACES_SAMPLER_ARG`, default 1); only the `traceidratio` samplers read it. */
  ratio: number;
}

/**
 * Reads `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`, as the specification's) and
 * `OTEL_TRACES_SAMPLER_ARG` (default 1). Where the SDK would log and fall back to the default, this throws
 * with a message naming the variable, so a typo stops the gateway at start-up instead of tracing everything.
 * @see https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/#general-sdk-configuration
 */
export function readTraceSampler(env: NodeJS.ProcessEnv): TraceSamplerSetting {
  const raw = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase();
  const name = (raw || 'parentbased_always_on') as TraceSamplerName;
  if (!TRACE_SAMPLERS.includes(name))
    throw new Error(`OTEL_TRACES_SAMPLER: expected one of ${TRACE_SAMPLERS.join(', ')}, got '${env.OTEL_TRACES_SAMPLER}'`);
  const arg = (env.OTEL_TRACES_SAMPLER_ARG ?? '').trim();
  if (!name.endsWith('traceidratio') || arg === '') return { name, ratio: 1 };
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new Error(`OTEL_TRACES_SAMPLER_ARG: expected a probability from 0 to 1 for ${name}, got '${env.OTEL_TRACES_SAMPLER_ARG}'`);
  return { name, ratio };
}

/** `OTEL_SDK_DISABLED=true` (case-insensitive, the specification's boolean): no tracer, whatever else is set. */
export function sdkDisabled(env: NodeJS.ProcessEnv): boolean {
  return (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';
}
