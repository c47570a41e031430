import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import type { LogViewer, RequestLogFilter } from './request-logs.js';
import type { AnalyticsColumn, GraphMetric, GraphPoint, GraphSummary, GroupQuery, GroupRow } from './request-log-analytics.js';
import { BUCKETS_MS } from './request-log-rollups.js';
import {
  GROUP_DIMS,
  histogramChoice,
  histogramsByKey,
  percentiles,
  planRange,
  rollupsCanFilter,
  sumsByKey,
  type Sums,
} from './request-log-rollup-queries.js';

const PERCENTILE_COLUMNS: readonly AnalyticsColumn[] = ['p95_latency', 'p99_latency'];

function columnValue(c: AnalyticsColumn, s: Sums): number | null {
  const per = (v: number) => (s.requests ? v / s.requests : null);
  switch (c) {
    case 'cost':
      return s.cost;
    case 'total_tokens':
      return s.total_tokens;
    case 'avg_tokens':
      return per(s.total_tokens);
    case 'avg_input_tokens':
      return per(s.prompt_tokens);
    case 'avg_output_tokens':
      return per(s.completion_tokens);
    case 'avg_latency':
      return per(s.latency_sum);
    case 'success_rate':
      return per(s.requests - s.errors);
    case 'error_count':
      return s.errors;
    case 'cache_hit_rate':
      return per(s.cache_hits);
    case 'first_seen':
      return s.first_seen;
    case 'last_seen':
      return s.last_seen;
    default:
      return null;
  }
}

/**
 * A grouped query answered from the rollups (`groupRequestLogs`'s answer), or null when they cannot
 * answer it: a trace-id or metadata filter, a range without one whole minute, or percentiles asked
 * under conditions no single histogram dimension covers. Counts, sums, averages and first/last seen
 * are exact; p95/p99 come from the histograms (within 1%). Groups are ordered and paged here, like
 * the SQL of the row path (the column, then the group value).
 */
export async function groupFromRollups(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter & { startTime: number; endTime: number },
  q: GroupQuery,
): Promise<{ rows: GroupRow[]; total: number } | null> {
  if (!rollupsCanFilter(f)) return null;
  const plan = planRange(f.startTime, f.endTime);
  if (plan.rollups.length === 0) return null;
  const { column, dim } = GROUP_DIMS[q.groupBy]!;
  const wantsPercentiles = [...q.columns, q.orderBy].some((c) => PERCENTILE_COLUMNS.includes(c as AnalyticsColumn));
  const choice = wantsPercentiles ? histogramChoice(f, viewer, dim) : null;
  if (wantsPercentiles && !choice) return null;
  if (scope.workspaceIds.length === 0 || (viewer.visibility.rows === 'own' && viewer.userId === null)) return { rows: [], total: 0 };
  const status = column === 'status';
  const rowKey = status ? sql`status` : sql`coalesce(${sql.ref(column)}, '')`;
  const groups = await sumsByKey(db, scope, viewer, f, plan, sql.ref(column), rowKey);
  const hists = choice
    ? await histogramsByKey(
        db,
        scope,
        viewer,
        f,
        plan,
        choice,
        q.groupBy === 'workspace' ? sql.ref('workspace_id') : sql.ref('dim_value'),
        rowKey,
      )
    : undefined;
  const rows: GroupRow[] = groups.map(({ key, sums }) => {
    const out: GroupRow = { group: status ? Number(key) : key === '' ? null : String(key), requests: sums.requests };
    for (const c of new Set([...q.columns, ...(q.orderBy === 'requests' ? [] : [q.orderBy])])) out[c] = columnValue(c, sums);
    if (hists) [out.p95_latency, out.p99_latency] = percentiles(hists.get(String(key)), [95, 99]);
    return out;
  });
  const sign = q.order === 'asc' ? 1 : -1;
  const text = (g: GroupRow['group']) => (g === null ? '' : g);
  rows.sort((a, b) => {
    const x = a[q.orderBy as 'requests'] ?? -Infinity;
    const y = b[q.orderBy as 'requests'] ?? -Infinity;
    if (x !== y) return x < y ? -sign : sign;
    const [gx, gy] = [text(a.group), text(b.group)];
    return gx < gy ? -1 : gx > gy ? 1 : 0;
  });
  const page = rows.slice(q.offset, q.offset + q.limit).map((r) => {
    const out: GroupRow = { group: r.group, requests: r.requests };
    for (const c of q.columns) out[c] = r[c] ?? null;
    return out;
  });
  return { rows: page, total: rows.length };
}

/** The bucket widths whose buckets each fall within one point of a graph starting at `start` every `step`. */
function widthsFor(start: number, step: number): number[] {
  return BUCKETS_MS.filter((w) => w <= step && step % w === 0 && start % w === 0);
}

/** The index of the graph point a time (SQL) falls in. */
function pointOf(t: RawBuilder<unknown>, start: number, step: number): RawBuilder<unknown> {
  return sql`cast((${t} - cast(${start} as bigint)) / cast(${step} as bigint) as bigint)`;
}

/**
 * A graph answered from the rollups (`graphRequestLogs`'s answer), or null when they cannot answer it:
 * a trace-id or metadata filter, a start that is not a whole minute (points start at `start_time`, so
 * no bucket would fit in one), or latency percentiles under conditions no single histogram dimension
 * covers. Each point reads the widest buckets that fit in it, and the rows for a partial last minute.
 */
export async function graphFromRollups(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter & { startTime: number; endTime: number },
  metric: GraphMetric,
  intervalMs: number,
): Promise<{ points: GraphPoint[]; summary: GraphSummary } | null> {
  if (!rollupsCanFilter(f)) return null;
  const plan = planRange(f.startTime, f.endTime, widthsFor(f.startTime, intervalMs));
  if (plan.rollups.length === 0) return null;
  const choice = metric === 'latency' ? histogramChoice(f, viewer) : null;
  if (metric === 'latency' && !choice) return null;
  const summary: GraphSummary = {
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
  if (scope.workspaceIds.length === 0 || (viewer.visibility.rows === 'own' && viewer.userId === null)) return { points: [], summary };
  const at = (i: unknown) => f.startTime + Number(i) * intervalMs;
  if (choice) {
    const hists = await histogramsByKey(
      db,
      scope,
      viewer,
      f,
      plan,
      choice,
      pointOf(sql.ref('bucket_start'), f.startTime, intervalMs),
      pointOf(sql.ref('created_at'), f.startTime, intervalMs),
    );
    const all = { hist: new Map<number, number>(), requests: 0, latency_sum: 0 };
    const points: GraphPoint[] = [...hists.entries()]
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map(([i, acc]) => {
        for (const [bin, n] of acc.hist) all.hist.set(bin, (all.hist.get(bin) ?? 0) + n);
        all.requests += acc.requests;
        all.latency_sum += acc.latency_sum;
        const [p50, p95, p99] = percentiles(acc, [50, 95, 99]);
        return { timestamp: at(i), value: acc.requests ? acc.latency_sum / acc.requests : null, p50, p95, p99 };
      });
    const [p50, p95, p99] = percentiles(all, [50, 95, 99]);
    return {
      points,
      summary: { ...summary, requests: all.requests, avg_latency: all.requests ? all.latency_sum / all.requests : null, p50, p95, p99 },
    };
  }
  const sums = await sumsByKey(
    db,
    scope,
    viewer,
    f,
    plan,
    pointOf(sql.ref('bucket_start'), f.startTime, intervalMs),
    pointOf(sql.ref('created_at'), f.startTime, intervalMs),
  );
  const value = (s: Sums): number | null => {
    switch (metric) {
      case 'requests':
        return s.requests;
      case 'cost':
        return s.cost;
      case 'tokens':
        return s.total_tokens;
      case 'errors':
        return s.errors;
      case 'cache_hit_rate':
        return s.requests ? s.cache_hits / s.requests : null;
      default:
        return null;
    }
  };
  const points = sums
    .sort((a, b) => Number(a.key) - Number(b.key))
    .map(({ key, sums: s }) => {
      summary.requests += s.requests;
      summary.errors += s.errors;
      summary.cost += s.cost;
      summary.total_tokens += s.total_tokens;
      summary.input_tokens += s.prompt_tokens;
      summary.output_tokens += s.completion_tokens;
      summary.cache_hits += s.cache_hits;
      return { timestamp: at(key), value: value(s) };
    });
  return { points, summary };
}
