import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { Permission } from '../../../kernel/permissions.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import {
  ANALYTICS_COLUMNS,
  GROUP_COLUMNS,
  groupRequestLogs,
  graphRequestLogs,
  type AnalyticsColumn,
  type GraphMetric,
  type GroupBy,
} from '../../../infra/store/repos/request-log-analytics.js';
import type { RequestLogFilter } from '../../../infra/store/repos/request-logs.js';
import { graphFromRollups, groupFromRollups } from '../../../infra/store/repos/request-log-rollup-analytics.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { PageQuery, iso, pageOf } from '../../../identity/paging.js';
import { LogFilterQuery, METADATA_QUERY, filterOf, type LogFilterInput } from '../logs/log-filter.js';
import { retentionStart } from '../logs/retention.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const DAY_MS = 86_400_000;
/** Default range of analytics: the last 7 days. */
const DEFAULT_RANGE_MS = 7 * DAY_MS;
const INTERVALS = { minute: 60_000, hour: 3_600_000, day: DAY_MS } as const;
/** Most points a graph answers (a week of minutes). */
export const MAX_GRAPH_POINTS = 10_080;
const METRICS: readonly GraphMetric[] = ['requests', 'cost', 'tokens', 'latency', 'errors', 'cache_hit_rate'];

const FilterMembers = { ...LogFilterQuery, workspace_id: Type.Optional(Type.String({ minLength: 1 })) };
const GroupsQuery = Type.Object(
  {
    ...FilterMembers,
    ...PageQuery,
    columns: Type.Optional(Type.String({ maxLength: 1000 })),
    order_by: Type.Optional(Type.String({ maxLength: 64 })),
    order: Type.Optional(StringEnum(['asc', 'desc'])),
  },
  { additionalProperties: false, patternProperties: METADATA_QUERY },
);
const GraphQuery = Type.Object(
  { ...FilterMembers, interval: Type.Optional(StringEnum(['minute', 'hour', 'day'])) },
  { additionalProperties: false, patternProperties: METADATA_QUERY },
);
const GroupsAnswer = Type.Object({
  object: Type.Literal('list'),
  total: Type.Integer(),
  data: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});
const GraphAnswer = Type.Object({
  object: Type.Literal('analytics-graph'),
  metric: Type.String(),
  interval: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  data_points: Type.Array(Type.Object({ timestamp: Type.String(), value: Nullable(Type.Number()) }, { additionalProperties: true })),
  summary: Type.Record(Type.String(), Type.Unknown()),
});

/** The filter of an analytics query: the logs' filters, the default range (last 7 days) and the retention bound. */
function analyticsFilter(deps: GatewayDeps, q: LogFilterInput): RequestLogFilter & { startTime: number; endTime: number } {
  const now = deps.clock.now();
  const f = filterOf(q, { retainedSince: retentionStart(deps), defaultEnd: now });
  const endTime = f.endTime!;
  const startTime = f.startTime ?? endTime - DEFAULT_RANGE_MS;
  if (startTime > endTime)
    throw new GatewayError('invalid_request', 'querystring.start_time is after querystring.end_time.', { param: 'start_time' });
  return { ...f, startTime, endTime };
}

/** The tenant scope and viewer of a request; a `metadata.<key>` filter needs the right to see metadata. */
function readerOf(deps: GatewayDeps, request: FastifyRequest, workspaceId: string | undefined, filter: RequestLogFilter) {
  const principal = principalOf(request);
  const scope = tenantScope(principal, deps.runtime.current, workspaceId);
  if (filter.metadata && !principal.visibility.metadata)
    throw new GatewayError('forbidden', 'Filtering on metadata needs the right to see it (organisationAdminsViewLogMetadata).', {
      param: `metadata.${filter.metadata[0]![0]}`,
    });
  return { principal, scope };
}

function columnsOf(text: string | undefined): AnalyticsColumn[] {
  if (text === undefined || text.trim() === '') return [];
  const out: AnalyticsColumn[] = [];
  for (const raw of text.split(',')) {
    const c = raw.trim();
    if (!(ANALYTICS_COLUMNS as readonly string[]).includes(c))
      throw new GatewayError(
        'invalid_request',
        `querystring.columns: unknown column '${c.slice(0, 64)}' (one of ${ANALYTICS_COLUMNS.join(', ')}).`,
        { param: 'columns' },
      );
    if (!out.includes(c as AnalyticsColumn)) out.push(c as AnalyticsColumn);
  }
  return out;
}

function groupsHandler(deps: GatewayDeps) {
  return async (request: FastifyRequest<{ Params: { groupBy: string }; Querystring: Static<typeof GroupsQuery> }>) => {
    const groupBy = request.params.groupBy;
    if (!Object.hasOwn(GROUP_COLUMNS, groupBy))
      throw new GatewayError(
        'invalid_request',
        `groupBy: unknown grouping '${groupBy.slice(0, 64)}' (one of ${Object.keys(GROUP_COLUMNS).join(', ')}).`,
        { param: 'groupBy' },
      );
    const q = request.query;
    const columns = columnsOf(q.columns);
    const orderBy = q.order_by ?? 'requests';
    if (orderBy !== 'requests' && !(ANALYTICS_COLUMNS as readonly string[]).includes(orderBy))
      throw new GatewayError(
        'invalid_request',
        `querystring.order_by: unknown column '${orderBy.slice(0, 64)}' (requests or one of ${ANALYTICS_COLUMNS.join(', ')}).`,
        { param: 'order_by' },
      );
    const filter = analyticsFilter(deps, q as LogFilterInput);
    const { principal, scope } = readerOf(deps, request, q.workspace_id, filter);
    await deps.logs.flush();
    const { limit, offset } = pageOf(q);
    const query = {
      groupBy: groupBy as GroupBy,
      columns,
      orderBy: orderBy as AnalyticsColumn | 'requests',
      order: q.order ?? 'desc',
      limit,
      offset,
    } as const;
    const { rows, total } =
      (await groupFromRollups(deps.store.db, scope, principal, filter, query)) ??
      (await groupRequestLogs(deps.store.db, scope, principal, filter, query));
    return {
      object: 'list' as const,
      total,
      data: rows.map(({ group, ...values }) => {
        const out: Record<string, unknown> = { [groupBy]: group, requests: values.requests };
        for (const c of columns) out[c] = c === 'first_seen' || c === 'last_seen' ? iso(values[c]) : values[c];
        return out;
      }),
    };
  };
}

/** The interval of a graph: the asked one, else by the range (up to 6 hours: minutes; up to 14 days: hours; else days). */
function intervalOf(asked: keyof typeof INTERVALS | undefined, rangeMs: number): keyof typeof INTERVALS {
  const interval = asked ?? (rangeMs <= 6 * 3_600_000 ? 'minute' : rangeMs <= 14 * DAY_MS ? 'hour' : 'day');
  if (Math.ceil(rangeMs / INTERVALS[interval]) > MAX_GRAPH_POINTS)
    throw new GatewayError(
      'invalid_request',
      `querystring.interval: '${interval}' over this range makes more than ${MAX_GRAPH_POINTS} points; choose a longer interval or a shorter range.`,
      { param: 'interval' },
    );
  return interval;
}

function graphHandler(deps: GatewayDeps) {
  return async (request: FastifyRequest<{ Params: { metric: string }; Querystring: Static<typeof GraphQuery> }>) => {
    const metric = request.params.metric as GraphMetric;
    if (!METRICS.includes(metric))
      throw new GatewayError(
        'invalid_request',
        `metric: unknown metric '${request.params.metric.slice(0, 64)}' (one of ${METRICS.join(', ')}).`,
        { param: 'metric' },
      );
    const q = request.query;
    const filter = analyticsFilter(deps, q as LogFilterInput);
    const interval = intervalOf(q.interval, filter.endTime - filter.startTime);
    const { principal, scope } = readerOf(deps, request, q.workspace_id, filter);
    await deps.logs.flush();
    const step = INTERVALS[interval];
    const { points, summary } =
      (await graphFromRollups(deps.store.db, scope, principal, filter, metric, step)) ??
      (await graphRequestLogs(deps.store.db, scope, principal, filter, metric, step));
    const byStart = new Map(points.map((p) => [p.timestamp, p]));
    const data_points: Array<{ timestamp: string; value: number | null; p50?: number | null; p95?: number | null; p99?: number | null }> =
      [];
    for (let t = filter.startTime; t < filter.endTime; t += step) {
      const p = byStart.get(t);
      const zero = metric === 'latency' ? null : 0;
      data_points.push({
        timestamp: new Date(t).toISOString(),
        value: p?.value ?? zero,
        ...(metric === 'latency' ? { p50: p?.p50 ?? null, p95: p?.p95 ?? null, p99: p?.p99 ?? null } : {}),
      });
    }
    return {
      object: 'analytics-graph' as const,
      metric,
      interval,
      start_time: new Date(filter.startTime).toISOString(),
      end_time: new Date(filter.endTime).toISOString(),
      data_points,
      summary: summaryOf(metric, summary),
    };
  };
}

function summaryOf(metric: GraphMetric, s: Awaited<ReturnType<typeof graphRequestLogs>>['summary']): Record<string, unknown> {
  switch (metric) {
    case 'requests':
      return { total: s.requests };
    case 'cost':
      return { total: s.cost, requests: s.requests };
    case 'tokens':
      return { total: s.total_tokens, input: s.input_tokens, output: s.output_tokens, requests: s.requests };
    case 'latency':
      return { avg: s.avg_latency, p50: s.p50, p95: s.p95, p99: s.p99, requests: s.requests };
    case 'errors':
      return { total: s.errors, rate: s.requests ? s.errors / s.requests : 0, requests: s.requests };
    case 'cache_hit_rate':
      return { rate: s.requests ? s.cache_hits / s.requests : 0, hits: s.cache_hits, requests: s.requests };
  }
}

/**
 * Analytics of the request log (control-plane.md §8): `GET /v1/analytics/groups/{groupBy}` and its
 * twin `GET /v1/logs/groups/{groupBy}`, and `GET /v1/analytics/graphs/{metric}`. Hand-written rather
 * than a declared resource: they aggregate the log rather than list rows of a table. A query the
 * analytics rollups can answer is read from them (`request-log-rollup-analytics.ts`), any other from
 * the rows. Each declares its
 * permission (`analytics.read`; the twin under `/v1/logs` needs `logs.read`), reads within the
 * principal's tenant scope, and applies the logs' visibility rule (`own` rows only, metadata filters
 * only for who may see metadata).
 */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const groups: Array<[string, Permission]> = [
    ['/v1/analytics/groups/:groupBy', 'analytics.read'],
    ['/v1/logs/groups/:groupBy', 'logs.read'],
  ];
  for (const [url, permission] of groups) {
    typed.get(
      url,
      {
        config: { permission },
        schema: {
          params: Type.Object({ groupBy: Type.String() }),
          querystring: GroupsQuery,
          tags: ['analytics'],
          summary: 'Request-log analytics grouped by a dimension',
          response: { 200: GroupsAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
        },
      },
      groupsHandler(deps),
    );
  }
  typed.get(
    '/v1/analytics/graphs/:metric',
    {
      config: { permission: 'analytics.read' },
      schema: {
        params: Type.Object({ metric: Type.String() }),
        querystring: GraphQuery,
        tags: ['analytics'],
        summary: 'A request-log metric over time',
        response: { 200: GraphAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    graphHandler(deps),
  );
}
