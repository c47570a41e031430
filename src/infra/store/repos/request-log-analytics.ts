import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { filteredRows, type LogViewer, type RequestLogFilter } from './request-logs.js';

/** What a grouped query groups by, and the request-log column each names. */
export const GROUP_COLUMNS = {
  ai_service: 'endpoint',
  model: 'model',
  status_code: 'status',
  api_key: 'api_key_id',
  config: 'config_id',
  workspace: 'workspace_id',
  provider: 'provider',
  prompt: 'prompt_id',
} as const;

/** A `groupBy` of `/v1/analytics/groups/{groupBy}`. */
export type GroupBy = keyof typeof GROUP_COLUMNS;

/** The columns a grouped query may ask for (control-plane.md §8), besides `requests` (always there). */
export const ANALYTICS_COLUMNS = [
  'cost',
  'total_tokens',
  'avg_tokens',
  'avg_input_tokens',
  'avg_output_tokens',
  'avg_latency',
  'p95_latency',
  'p99_latency',
  'success_rate',
  'error_count',
  'cache_hit_rate',
  'last_seen',
  'first_seen',
] as const;

/** A column of a grouped answer. */
export type AnalyticsColumn = (typeof ANALYTICS_COLUMNS)[number];

/** One group: its value, `requests` and the asked columns (times in ms). */
export type GroupRow = { group: string | number | null; requests: number } & Partial<Record<AnalyticsColumn, number | null>>;

/** A grouped query: what to group by, which columns, the order and the page. */
export interface GroupQuery {
  groupBy: GroupBy;
  columns: readonly AnalyticsColumn[];
  orderBy: AnalyticsColumn | 'requests';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The SQL of each aggregate column over the filtered rows `f` (percentiles come from the ranked rows). */
const AGGREGATES: Record<Exclude<AnalyticsColumn, 'p95_latency' | 'p99_latency'>, RawBuilder<unknown>> = {
  cost: sql`sum(cost)`,
  total_tokens: sql`sum(total_tokens)`,
  avg_tokens: sql`avg(total_tokens)`,
  avg_input_tokens: sql`avg(prompt_tokens)`,
  avg_output_tokens: sql`avg(completion_tokens)`,
  avg_latency: sql`avg(latency_ms)`,
  success_rate: sql`sum(case when status < 400 then 1 else 0 end) * 1.0 / count(*)`,
  error_count: sql`sum(case when status >= 400 then 1 else 0 end)`,
  cache_hit_rate: sql`sum(case when cache_status in ('HIT', 'SEMANTIC HIT') then 1 else 0 end) * 1.0 / count(*)`,
  last_seen: sql`max(created_at)`,
  first_seen: sql`min(created_at)`,
};

/** Rank (1-based) of the nearest-rank percentile `p` (in %) among `n` sorted values: ceil(p·n/100), in integers. */
function rankOf(p: number, n: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(${sql.lit(p)} * ${n} + 99) / 100`;
}

function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** The filtered rows with the group's value (text groups: null as '' so it joins). */
function groupedRows(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer, f: RequestLogFilter, groupBy: GroupBy) {
  const column = GROUP_COLUMNS[groupBy];
  const g = column === 'status' ? sql`status` : sql`coalesce(${sql.ref(column)}, '')`;
  return filteredRows(db, scope, viewer, f).select([
    g.as('g'),
    'status',
    'cost',
    'total_tokens',
    'prompt_tokens',
    'completion_tokens',
    'latency_ms',
    'cache_status',
    'created_at',
  ]);
}

/**
 * A page of groups over the rows the viewer may see that match the filter, with `requests` and the
 * asked columns, ordered by a whitelisted column (then the group value), and the number of groups.
 * Percentiles are exact (nearest rank over the matching rows, by window functions on both stores).
 * Every value from the request is a bound parameter; column names and the order come only from the
 * fixed tables above.
 */
export async function groupRequestLogs(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter,
  q: GroupQuery,
): Promise<{ rows: GroupRow[]; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  const rows = groupedRows(db, scope, viewer, f, q.groupBy);
  const wantsPercentiles =
    q.columns.includes('p95_latency') || q.columns.includes('p99_latency') || q.orderBy === 'p95_latency' || q.orderBy === 'p99_latency';
  const plain = [...new Set([...q.columns, ...(q.orderBy === 'requests' ? [] : [q.orderBy])])].filter(
    (c): c is keyof typeof AGGREGATES => c in AGGREGATES,
  );
  const selects = [sql`g`, sql`count(*) as requests`, ...plain.map((c) => sql`${AGGREGATES[c]} as ${sql.ref(c)}`)];
  const percentiles = wantsPercentiles
    ? sql`, ranked as (select g, latency_ms, row_number() over (partition by g order by latency_ms) as rn, count(*) over (partition by g) as n from f),
          pct as (select g as pg, min(case when rn = ${rankOf(95, sql`n`)} then latency_ms end) as p95_latency, min(case when rn = ${rankOf(99, sql`n`)} then latency_ms end) as p99_latency from ranked group by g)`
    : sql``;
  const join = wantsPercentiles ? sql`left join pct on pct.pg = agg.g` : sql``;
  const pctColumns = wantsPercentiles ? sql`, pct.p95_latency, pct.p99_latency` : sql``;
  const direction = q.order === 'asc' ? sql`asc` : sql`desc`;
  const page = await sql<Record<string, unknown>>`
    with f as ${rows}, agg as (select ${sql.join(selects)} from f group by g)${percentiles}
    select agg.*${pctColumns} from agg ${join}
    order by ${sql.ref(q.orderBy)} ${direction}, agg.g asc
    limit ${q.limit} offset ${q.offset}`.execute(db);
  const count = await sql<{ n: unknown }>`with f as ${rows} select count(*) as n from (select g from f group by g) as groups`.execute(db);
  const column = GROUP_COLUMNS[q.groupBy];
  return {
    total: Number(count.rows[0]?.n ?? 0),
    rows: page.rows.map((r) => {
      const out: GroupRow = {
        group: column === 'status' ? Number(r.g) : r.g === '' ? null : (r.g as string),
        requests: Number(r.requests),
      };
      for (const c of q.columns) out[c] = num(r[c]);
      return out;
    }),
  };
}

/** A time-series metric of `/v1/analytics/graphs/{metric}`. */
export type GraphMetric = 'requests' | 'cost' | 'tokens' | 'latency' | 'errors' | 'cache_hit_rate';

/** One bucket of a graph: its start (ms) and its value; latency buckets also carry their percentiles. */
export interface GraphPoint {
  timestamp: number;
  value: number | null;
  p50?: number | null;
  p95?: number | null;
  p99?: number | null;
}

/** What a whole graph range adds up to (exact over the matching rows). */
export interface GraphSummary {
  requests: number;
  errors: number;
  cost: number;
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  cache_hits: number;
  avg_latency: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

const POINT_VALUE: Record<GraphMetric, RawBuilder<unknown>> = {
  requests: sql`count(*)`,
  cost: sql`sum(cost)`,
  tokens: sql`sum(total_tokens)`,
  latency: sql`avg(latency_ms)`,
  errors: sql`sum(case when status >= 400 then 1 else 0 end)`,
  cache_hit_rate: sql`sum(case when cache_status in ('HIT', 'SEMANTIC HIT') then 1 else 0 end) * 1.0 / count(*)`,
};

/**
 * The buckets of `metric` over [start, end) every `intervalMs` (only buckets with rows; the caller fills
 * the gaps), with per-bucket p50/p95/p99 for latency, and the summary of the whole range.
 */
export async function graphRequestLogs(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter & { startTime: number; endTime: number },
  metric: GraphMetric,
  intervalMs: number,
): Promise<{ points: GraphPoint[]; summary: GraphSummary }> {
  const empty: GraphSummary = {
    requests: 0,
    errors: 0,
    cost: 0,
    total_tokens: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_hits: 0,
    avg_latency: null,
    p50: null,
    p95: null,
    p99: null,
  };
  if (scope.workspaceIds.length === 0) return { points: [], summary: empty };
  // Integer arithmetic on both stores (SQLite binds JS numbers as reals: cast before dividing and after).
  const start = sql`cast(${f.startTime} as bigint)`;
  const step = sql`cast(${intervalMs} as bigint)`;
  const bucket = sql`cast((created_at - ${start}) / ${step} as bigint) * ${step} + ${start}`;
  const rows = filteredRows(db, scope, viewer, f).select([
    bucket.as('b'),
    'status',
    'cost',
    'total_tokens',
    'prompt_tokens',
    'completion_tokens',
    'latency_ms',
    'cache_status',
  ]);
  const latency = metric === 'latency';
  const pointsQuery = latency
    ? sql<Record<string, unknown>>`with f as ${rows},
        ranked as (select b, latency_ms, row_number() over (partition by b order by latency_ms) as rn, count(*) over (partition by b) as n from f)
        select b, avg(latency_ms) as value, min(case when rn = ${rankOf(50, sql`n`)} then latency_ms end) as p50,
          min(case when rn = ${rankOf(95, sql`n`)} then latency_ms end) as p95, min(case when rn = ${rankOf(99, sql`n`)} then latency_ms end) as p99
        from ranked group by b order by b`
    : sql<Record<string, unknown>>`with f as ${rows} select b, ${POINT_VALUE[metric]} as value from f group by b order by b`;
  const summaryQuery = sql<Record<string, unknown>>`with f as ${rows},
      ranked as (select latency_ms, row_number() over (order by latency_ms) as rn, count(*) over () as n from f)
      select (select count(*) from f) as requests, (select sum(case when status >= 400 then 1 else 0 end) from f) as errors, (select sum(cost) from f) as cost,
        (select sum(total_tokens) from f) as total_tokens, (select sum(prompt_tokens) from f) as input_tokens, (select sum(completion_tokens) from f) as output_tokens,
        (select sum(case when cache_status in ('HIT', 'SEMANTIC HIT') then 1 else 0 end) from f) as cache_hits, (select avg(latency_ms) from f) as avg_latency,
        (select min(latency_ms) from ranked where rn = ${rankOf(50, sql`n`)}) as p50, (select min(latency_ms) from ranked where rn = ${rankOf(95, sql`n`)}) as p95,
        (select min(latency_ms) from ranked where rn = ${rankOf(99, sql`n`)}) as p99`;
  const [points, summary] = [await pointsQuery.execute(db), await summaryQuery.execute(db)];
  const s = summary.rows[0] ?? {};
  return {
    points: points.rows.map((r) => ({
      timestamp: Number(r.b),
      value: num(r.value),
      ...(latency ? { p50: num(r.p50), p95: num(r.p95), p99: num(r.p99) } : {}),
    })),
    summary: {
      requests: Number(s.requests ?? 0),
      errors: Number(s.errors ?? 0),
      cost: Number(s.cost ?? 0),
      total_tokens: Number(s.total_tokens ?? 0),
      input_tokens: Number(s.input_tokens ?? 0),
      output_tokens: Number(s.output_tokens ?? 0),
      cache_hits: Number(s.cache_hits ?? 0),
      avg_latency: num(s.avg_latency),
      p50: num(s.p50),
      p95: num(s.p95),
      p99: num(s.p99),
    },
  };
}
