import { Type, type Static } from 'typebox';
import { getRequestLog, listRequestLogs, type RequestLogRow } from '../../../infra/store/repos/request-logs.js';
import { retentionStart } from './retention.js';
import { LogFilterQuery, METADATA_QUERY, filterOf, type LogFilterInput } from './log-filter.js';
import { defineResource } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const LogQuery = Type.Object(LogFilterQuery, { additionalProperties: false, patternProperties: METADATA_QUERY });

const GatewayErrorBody = Type.Object(
  { message: Type.String(), type: Type.String(), param: Nullable(Type.String()), code: Nullable(Type.String()) },
  { additionalProperties: true },
);

/** One request of the log, as `GET /v1/logs` lists it. */
const LogItem = Type.Object({
  id: Type.String(),
  organisation_id: Type.String(),
  workspace_id: Type.String(),
  api_key_id: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  trace_id: Type.String(),
  endpoint: Type.String(),
  provider: Nullable(Type.String()),
  model: Nullable(Type.String()),
  status: Type.Integer(),
  stream: Type.Boolean(),
  cache_status: Nullable(Type.String()),
  config_id: Nullable(Type.String()),
  prompt_id: Nullable(Type.String()),
  target_path: Nullable(Type.String()),
  retry_count: Type.Integer(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost: Type.Number(),
  latency_ms: Type.Integer(),
  /** Null when the reader may not see it (`organisationAdminsViewLogMetadata`). */
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  error: Nullable(GatewayErrorBody),
  hook_results: Type.Unknown(),
  created_at: Type.String(),
  /** The unit prices `cost` was computed with (docs/pricing.md); null when no price applied. */
  unit_prices: Nullable(Type.Record(Type.String(), Type.Unknown())),
  cached_tokens: Type.Integer(),
  cache_write_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
});

const Attempt = Type.Object({ target_path: Type.String(), provider: Type.String(), status: Type.Integer(), latency_ms: Type.Integer() });

/** `GET /v1/logs/{id}`: the row, every attempt of the route, timings, pricing and (when logged and visible) the bodies. */
const LogDetail = Type.Object({
  ...LogItem.properties,
  attempts: Type.Array(Attempt),
  timings: Type.Object({ ttfb_ms: Nullable(Type.Integer()), total_ms: Type.Integer() }),
  /** `cost` and whatever pricing columns the row carries (`unit_prices` …), by name. */
  pricing: Type.Record(Type.String(), Type.Unknown()),
  request_body: Type.Unknown(),
  response_body: Type.Unknown(),
});

/** Columns of a row that are not pricing: everything `LogItem` shows plus the detail's own. */
const NOT_PRICING = new Set([...Object.keys(LogItem.properties), 'attempts', 'ttfb_ms', 'request_body', 'response_body']);

function parse(text: string | null | undefined): unknown {
  return text === null || text === undefined ? null : JSON.parse(text);
}

/** A stored body: its JSON value, or its text when it was cut (`MAX_BODY_CHARS`). */
function body(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A list item: the row's own columns (the detail adds attempts, timings, pricing and bodies). */
export function presentLogItem(r: RequestLogRow): Static<typeof LogItem> {
  return {
    id: r.id,
    organisation_id: r.organisation_id,
    workspace_id: r.workspace_id,
    api_key_id: r.api_key_id,
    user_id: r.user_id,
    trace_id: r.trace_id,
    endpoint: r.endpoint,
    provider: r.provider,
    model: r.model,
    status: r.status,
    stream: r.stream === 1,
    cache_status: r.cache_status,
    config_id: r.config_id,
    prompt_id: r.prompt_id,
    target_path: r.target_path,
    retry_count: r.retry_count,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    total_tokens: r.total_tokens,
    cost: Number(r.cost),
    latency_ms: r.latency_ms,
    metadata: parse(r.metadata) as Record<string, unknown> | null,
    error: parse(r.error) as Static<typeof GatewayErrorBody> | null,
    hook_results: parse(r.hook_results),
    unit_prices: parse(r.unit_prices ?? null) as Record<string, unknown> | null,
    cached_tokens: Number(r.cached_tokens ?? 0),
    cache_write_tokens: Number(r.cache_write_tokens ?? 0),
    reasoning_tokens: Number(r.reasoning_tokens ?? 0),
    created_at: iso(Number(r.created_at)) ?? '',
  };
}

/** Pricing columns the row carries besides `cost` (added by pricing features), JSON text parsed. */
function pricingOf(r: RequestLogRow): Record<string, unknown> {
  const out: Record<string, unknown> = { cost: Number(r.cost) };
  for (const [k, v] of Object.entries(r)) {
    if (NOT_PRICING.has(k) || !/(price|cost|currency)/.test(k)) continue;
    out[k] = typeof v === 'string' && /^[[{]/.test(v) ? body(v) : v;
  }
  return out;
}

function presentDetail(r: RequestLogRow): Static<typeof LogDetail> {
  return {
    ...presentLogItem(r),
    attempts: (parse(r.attempts) as Array<Static<typeof Attempt>> | null) ?? [],
    timings: { ttfb_ms: r.ttfb_ms ?? null, total_ms: r.latency_ms },
    pricing: pricingOf(r),
    request_body: body(r.request_body),
    response_body: body(r.response_body),
  };
}

/**
 * `/v1/logs`: the request log, read-only (rows are written by the data plane's log pipeline), newest
 * first. Within the tenant scope every read is narrowed to what the principal may see (`dataVisibility`,
 * applied by the repository on list and read alike): a user's own requests only, when their workspace
 * role and its setting say so, and `metadata` hidden from organisation admins outside their workspaces
 * when `organisationAdminsViewLogMetadata` is false. A list first writes the rows still queued in memory.
 */
export const logsResource = defineResource({
  name: 'log',
  paths: ['/v1/logs'],
  tag: 'logs',
  noun: { one: 'a log', many: 'logs' },
  permissions: { read: 'logs.read' },
  runtimeSections: [],
  schemas: { listQuery: LogQuery, answer: LogDetail },
  repo: {
    get: (db, scope, id, viewer) => getRequestLog(db, scope, viewer, id),
    list: (db, scope, query, page, viewer) => listRequestLogs(db, scope, viewer, filterOf(query as LogFilterInput), page),
  },
  idOf: (r) => r.id,
  workspaceOf: (r) => r.workspace_id,
  present: presentDetail,
  listItem: { schema: LogItem, present: presentLogItem },
  async beforeList(ctx, query) {
    filterOf(query as LogFilterInput, { retainedSince: retentionStart(ctx.deps) });
    await ctx.deps.logs.flush();
  },
});
