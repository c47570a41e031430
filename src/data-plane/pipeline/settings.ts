import type { TracingOptions } from '../../infra/observability/tracing.js';
import { readTraceSampler, sdkDisabled } from '../../infra/observability/trace-sampler-setting.js';
import { join } from 'node:path';
import { HTTP_CLIENT_DEFAULTS } from '../../foundation/lib/http-client.js';
import { MAX_TIMEOUT_MS } from '../../foundation/lib/timeouts.js';

/** Process settings read from the environment (decisions.md, "Running"). */
export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema (tests isolate themselves; default public). */
  databaseSchema?: string;
  redisUrl?: string;
  /** Prefix of every Redis key this gateway writes (replicas of one gateway share it). */
  redisPrefix: string;
  adminKey?: string;
  /** `GATEWAY_ADMIN_EMAIL`: the email of the owner user the first start makes (with a generated admin key, `admin@localhost` when unset). */
  adminEmail?: string;
  apiKeyPrefix: string;
  /** `GATEWAY_METRICS_TOKEN`: when set, `GET /metrics` needs `Authorization: Bearer <token>` (unset: open). */
  metricsToken?: string;
  /** Console session cookies carry `Secure` even over plain http (`GATEWAY_COOKIE_SECURE=true`, behind a TLS proxy). */
  cookieSecure: boolean;
  trustedCustomHosts: string[];
  /** `OIDC_CUSTOM_SCOPES`: scopes every SSO sign-in asks for beside `openid email profile` (comma-separated). */
  oidcCustomScopes: string[];
  bodyLimitBytes: number;
  shutdownTimeoutMs: number;
  /** How long the gateway keeps serving after SIGTERM before it stops accepting, ms (`GATEWAY_SHUTDOWN_DELAY_MS`, 0 to 600000, default 0). */
  shutdownDelayMs: number;
  /** How long start-up retries an unreachable store before exit 3, ms (`GATEWAY_STORE_WAIT_MS`, default 60000). */
  storeWaitMs: number;
  retryBaseMs: number;
  logLevel: string;
  /** Write a request log row per request. */
  requestLog: boolean;
  /** Longest time a request-log row waits in memory before its batch is written, ms (`GATEWAY_REQUEST_LOG_FLUSH_MS`, default 250; a batch of 500 rows is written at once). */
  requestLogFlushMs: number;
  /** GATEWAY_ALERT_WEBHOOK_URL: where usage-limit alerts are POSTed (docs/usage-limits.md); none when unset. */
  alertWebhookUrl?: string;
  /** In-process answer cache bound, bytes (`GATEWAY_CACHE_MAX_BYTES`, default 64 MiB). */
  cacheMaxBytes: number;
  /** Embedding model of the semantic cache (`SEMANTIC_CACHE_EMBEDDING_MODEL`). */
  semanticCacheEmbeddingModel: string;
  /** Cosine similarity a semantic cache hit needs (`SEMANTIC_CACHE_THRESHOLD`, 0 < t ≤ 1). */
  semanticCacheThreshold: number;
  /** HMAC key signing image URLs (`GATEWAY_URL_SIGNING_KEY`); generated and kept in the data dir when unset. */
  urlSigningKey?: string;
  /** Public base URL of the gateway for links it hands out (`GATEWAY_PUBLIC_URL`); default from the request's Host. */
  publicUrl?: string;
  /** In-process image store bound, bytes (`GATEWAY_IMAGE_STORE_MAX_BYTES`, default 256 MiB). */
  imageStoreMaxBytes: number;
  /** Upstream connect timeout, ms (`GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS`, default 10 s). */
  upstreamConnectTimeoutMs: number;
  /** Longest wait for an upstream's response headers, ms (`GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS`, default 600 s). */
  upstreamHeadersTimeoutMs: number;
  /** Longest silence between two upstream body chunks, ms (`GATEWAY_UPSTREAM_BODY_TIMEOUT_MS`, default 600 s). */
  upstreamBodyTimeoutMs: number;
  /** Key sealing secrets at rest (`GATEWAY_ENCRYPTION_KEY`, 32 bytes in base64 or hex); required with PostgreSQL. */
  encryptionKey?: string;
  /** Interval of the background scheduler (scheduled key rotations, ...), ms (`GATEWAY_SCHEDULER_INTERVAL_MS`, default 60 s). */
  schedulerIntervalMs: number;
  /** Longest time keys' last-use times wait in memory, ms (`GATEWAY_KEY_LAST_USED_FLUSH_MS`, default 5 s; the scheduler's interval when shorter). */
  keyLastUsedFlushMs: number;
  /** How often the runtime version is read as a backstop to pub/sub, ms (`GATEWAY_RUNTIME_POLL_MS`, default 500). */
  runtimePollMs: number;
  /** How often the event-loop delay monitor behind `nodejs_eventloop_lag_*` samples, ms (`GATEWAY_EVENT_LOOP_MONITOR_MS`, default 100). */
  eventLoopMonitorMs: number;
  /** Longest wait for an agent server's answer, and longest silence within its stream, ms (`GATEWAY_AGENT_TIMEOUT_MS`, default 300 s); its card is read within min(this, 10 s). */
  agentTimeoutMs: number;
  /** How long a resolved secret-reference value is used before it is fetched again, ms (`SECRET_CACHE_TTL_MS`, default 300 s). */
  secretCacheTtlMs: number;
  /** PEM file of extra CA certificates trusted for secret managers (`SECRET_MANAGER_CA_FILE`; private Vault or test CAs). */
  secretManagerCaFile?: string;
  /** OpenTelemetry export (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); undefined: no tracing (also with `OTEL_SDK_DISABLED=true`). */
  tracing?: TracingOptions;
  /** Days request-log rows are kept (`GATEWAY_LOG_RETENTION_DAYS`); 0 (the default) keeps them forever. */
  logRetentionDays: number;
  /** How long an MCP session's upstream connection (an `sse` upstream's stream) stays open unused, ms (`GATEWAY_MCP_SESSION_IDLE_TTL_S`, default 3600 s). */
  mcpSessionIdleTtlMs: number;
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`Expected a non-negative number, got '${value}'`);
  return Math.floor(n);
}

function timeout(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TIMEOUT_MS)
    throw new Error(`Expected a timeout of 1 to ${MAX_TIMEOUT_MS} ms, got '${value}'`);
  return n;
}

/** A whole number of seconds, at least 1 (at most 30 days), as milliseconds. */
function seconds(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback * 1000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 30 * 86_400)
    throw new Error(`${name}: expected a whole number of seconds from 1 to 2592000, got '${value}'`);
  return n * 1000;
}

function fraction(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new Error(`Expected a number in (0, 1], got '${value}'`);
  return n;
}

function httpUrl(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}: expected an http(s) URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name}: expected an http(s) URL, got '${value}'`);
  return value;
}

/** The OTLP traces endpoint and options, when an endpoint is configured and `OTEL_SDK_DISABLED` is not `true`. */
function tracingOf(env: NodeJS.ProcessEnv): TracingOptions | undefined {
  if (sdkDisabled(env)) return undefined;
  const base = httpUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint =
    httpUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ??
    (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!endpoint) return undefined;
  return {
    endpoint,
    protocol: otlpProtocol(env),
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
    scheduleDelayMs: timeout(env.OTEL_BSP_SCHEDULE_DELAY, 1000),
    sampler: readTraceSampler(env),
  };
}

/**
 * The OTLP encoding of the trace export (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`):
 * `http/protobuf` (the OpenTelemetry default) or `http/json`; `grpc` is not supported.
 */
function otlpProtocol(env: NodeJS.ProcessEnv): TracingOptions['protocol'] {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[name];
  if (!value || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  throw new Error(`${name}: expected 'http/protobuf' or 'http/json' (gRPC is not supported), got '${value}'`);
}

function bounded(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}: expected an integer from ${min} to ${max}, got '${value}'`);
  return n;
}

/**
 * The prefix of generated gateway keys when `API_KEY_PREFIX` is not set: `gw_`, so that a secret scanner
 * can match a leaked key (`gw_` and 48 letters and digits). `API_KEY_PREFIX=` (empty) turns it off.
 */
export const DEFAULT_API_KEY_PREFIX = 'gw_';

/** Reads settings; throws with a clear message on a malformed value. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const dataDir = env.GATEWAY_DATA_DIR || './data';
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env.PORT, 8787),
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || 'gw:',
    adminKey: env.GATEWAY_ADMIN_KEY || undefined,
    adminEmail: env.GATEWAY_ADMIN_EMAIL || undefined,
    apiKeyPrefix: env.API_KEY_PREFIX ?? DEFAULT_API_KEY_PREFIX,
    metricsToken: env.GATEWAY_METRICS_TOKEN || undefined,
    cookieSecure: env.GATEWAY_COOKIE_SECURE === 'true',
    oidcCustomScopes: (env.OIDC_CUSTOM_SCOPES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    trustedCustomHosts: (env.TRUSTED_CUSTOM_HOSTS ?? 'localhost,127.0.0.1,::1')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    bodyLimitBytes: int(env.GATEWAY_MAX_BODY_BYTES, 25 * 1024 * 1024),
    shutdownTimeoutMs: int(env.GATEWAY_SHUTDOWN_TIMEOUT_MS, 30_000),
    shutdownDelayMs: bounded('GATEWAY_SHUTDOWN_DELAY_MS', env.GATEWAY_SHUTDOWN_DELAY_MS, 0, 0, 600_000),
    storeWaitMs: bounded('GATEWAY_STORE_WAIT_MS', env.GATEWAY_STORE_WAIT_MS, 60_000, 0, MAX_TIMEOUT_MS),
    retryBaseMs: int(env.GATEWAY_RETRY_BASE_MS, 100),
    logLevel: env.LOG_LEVEL || 'info',
    requestLog: env.GATEWAY_REQUEST_LOG !== 'false',
    requestLogFlushMs: timeout(env.GATEWAY_REQUEST_LOG_FLUSH_MS, 250),
    alertWebhookUrl: httpUrl(env.GATEWAY_ALERT_WEBHOOK_URL, 'GATEWAY_ALERT_WEBHOOK_URL'),
    cacheMaxBytes: int(env.GATEWAY_CACHE_MAX_BYTES, 64 * 1024 * 1024),
    semanticCacheEmbeddingModel: env.SEMANTIC_CACHE_EMBEDDING_MODEL || 'text-embedding-3-small',
    semanticCacheThreshold: fraction(env.SEMANTIC_CACHE_THRESHOLD, 0.95),
    urlSigningKey: env.GATEWAY_URL_SIGNING_KEY || undefined,
    publicUrl: env.GATEWAY_PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    imageStoreMaxBytes: int(env.GATEWAY_IMAGE_STORE_MAX_BYTES, 256 * 1024 * 1024),
    upstreamConnectTimeoutMs: timeout(env.GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS, HTTP_CLIENT_DEFAULTS.connectTimeoutMs),
    upstreamHeadersTimeoutMs: timeout(env.GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS, HTTP_CLIENT_DEFAULTS.headersTimeoutMs),
    upstreamBodyTimeoutMs: timeout(env.GATEWAY_UPSTREAM_BODY_TIMEOUT_MS, HTTP_CLIENT_DEFAULTS.bodyTimeoutMs),
    encryptionKey: env.GATEWAY_ENCRYPTION_KEY || undefined,
    schedulerIntervalMs: timeout(env.GATEWAY_SCHEDULER_INTERVAL_MS, 60_000),
    keyLastUsedFlushMs: timeout(env.GATEWAY_KEY_LAST_USED_FLUSH_MS, 5_000),
    runtimePollMs: timeout(env.GATEWAY_RUNTIME_POLL_MS, 500),
    eventLoopMonitorMs: timeout(env.GATEWAY_EVENT_LOOP_MONITOR_MS, 100),
    agentTimeoutMs: timeout(env.GATEWAY_AGENT_TIMEOUT_MS, 300_000),
    secretCacheTtlMs: int(env.SECRET_CACHE_TTL_MS, 300_000),
    secretManagerCaFile: env.SECRET_MANAGER_CA_FILE || undefined,
    logRetentionDays: int(env.GATEWAY_LOG_RETENTION_DAYS, 0),
    mcpSessionIdleTtlMs: seconds(env.GATEWAY_MCP_SESSION_IDLE_TTL_S, 3600, 'GATEWAY_MCP_SESSION_IDLE_TTL_S'),
    tracing: tracingOf(env),
  };
}

/** Path of the SQLite database of the embedded default. */
export function sqlitePath(settings: Settings): string {
  return join(settings.dataDir, 'gateway.db');
}
