import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../errors/gateway-error.js';
import { getRequestLog, listRequestLogs, type RequestLogFilter, type RequestLogRow } from '../../../store/repos/request-logs.js';
import { defineResource } from '../../resource/define-resource.js';
import { iso } from '../../resource/paging.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
/** An ISO 8601 time or Unix seconds. */
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0 })]);

const LogQuery = Type.Object(
  {
    trace_id: Type.Optional(Type.String({ minLength: 1 })),
    start_time: Type.Optional(Time),
    end_time: Type.Optional(Time),
    status_code: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    model: Type.Optional(Type.String({ minLength: 1 })),
    provider: Type.Optional(Type.String({ minLength: 1 })),
    api_key_id: Type.Optional(Type.String({ minLength: 1 })),
    user_id: Type.Optional(Type.String({ minLength: 1 })),
    cache_status: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const GatewayErrorBody = Type.Object({ message: Type.String(), type: Type.String(), param: Nullable(Type.String()), code: Nullable(Type.String()) }, { additionalProperties: true });

/** One request of the log, as `GET /v1/logs` and `GET /v1/logs/{id}` answer it. */
const LogAnswer = Type.Object({
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
});

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

function present(r: RequestLogRow): Static<typeof LogAnswer> {
  return {
    ...r,
    stream: r.stream === 1,
    metadata: parse(r.metadata) as Record<string, unknown> | null,
    error: parse(r.error) as Static<typeof GatewayErrorBody> | null,
    hook_results: parse(r.hook_results),
    created_at: iso(r.created_at) ?? '',
  };
}

/** Milliseconds of an ISO time or Unix seconds (400 naming the parameter when it is no time). */
function ms(v: string | number | undefined, param: string): number | undefined {
  if (v === undefined) return undefined;
  const t = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (Number.isNaN(t)) throw new GatewayError('invalid_request', `querystring.${param} is not a valid time.`, { param });
  return t;
}

/** The repository filter of a list query; `start_time` after `end_time` is 400. */
function filterOf(q: Static<typeof LogQuery>): RequestLogFilter {
  const startTime = ms(q.start_time, 'start_time');
  const endTime = ms(q.end_time, 'end_time');
  if (startTime !== undefined && endTime !== undefined && startTime > endTime) throw new GatewayError('invalid_request', 'querystring.start_time is after querystring.end_time.', { param: 'start_time' });
  return { traceId: q.trace_id, startTime, endTime, status: q.status_code, model: q.model, provider: q.provider, apiKeyId: q.api_key_id, userId: q.user_id, cacheStatus: q.cache_status };
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
  schemas: { listQuery: LogQuery, answer: LogAnswer },
  repo: {
    get: (db, scope, id, viewer) => getRequestLog(db, scope, viewer, id),
    list: (db, scope, query, page, viewer) => listRequestLogs(db, scope, viewer, filterOf(query), page),
  },
  idOf: (r) => r.id,
  workspaceOf: (r) => r.workspace_id,
  present,
  async beforeList(ctx, query) {
    filterOf(query);
    await ctx.deps.logs.flush();
  },
});
