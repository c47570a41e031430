import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { mergeStored, percentilesOf, addTo, type Histogram } from '../../../foundation/lib/latency-histogram.js';
import { filteredRows, whereDimensions, type LogViewer, type RequestLogFilter } from './request-logs.js';
import { BUCKETS_MS, type HistogramDim } from './request-log-rollups.js';

/** Whole buckets of one width to read from the rollups: those starting in [from, to). */
export interface RollupSegment {
  bucketMs: number;
  from: number;
  to: number;
}

/** How a time range is read: whole buckets from the rollups, the partial edges from the rows. */
export interface RangePlan {
  rollups: RollupSegment[];
  raw: Array<{ from: number; to: number }>;
}

const floorTo = (t: number, w: number) => t - (((t % w) + w) % w);
const ceilTo = (t: number, w: number) => (t % w === 0 ? t : floorTo(t, w) + w);

/**
 * Splits [start, end) into the coarsest whole buckets of the allowed widths (finest first), finer
 * ones towards the edges, and the partial minutes at either end (read from the rows).
 */
export function planRange(start: number, end: number, widths: readonly number[] = BUCKETS_MS): RangePlan {
  const plan: RangePlan = { rollups: [], raw: [] };
  const split = (from: number, to: number, level: number): void => {
    if (from >= to) return;
    if (level < 0) {
      plan.raw.push({ from, to });
      return;
    }
    const w = widths[level]!;
    const a = ceilTo(from, w);
    const b = floorTo(to, w);
    if (a >= b) return split(from, to, level - 1);
    split(from, a, level - 1);
    plan.rollups.push({ bucketMs: w, from: a, to: b });
    split(b, to, level - 1);
  };
  split(start, end, widths.length - 1);
  return plan;
}

/** What a group or a graph point adds up to (sums over the rollups and the edge rows). */
export interface Sums {
  requests: number;
  errors: number;
  cache_hits: number;
  cost: number;
  total_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_sum: number;
  first_seen: number | null;
  last_seen: number | null;
}

/** The request-log column each groupBy names, and its histogram dimension (`workspace`: `all`, per workspace). */
export const GROUP_DIMS: Record<string, { column: string; dim: HistogramDim }> = {
  ai_service: { column: 'endpoint', dim: 'endpoint' },
  model: { column: 'model', dim: 'model' },
  status_code: { column: 'status', dim: 'status' },
  api_key: { column: 'api_key_id', dim: 'api_key_id' },
  config: { column: 'config_id', dim: 'config_id' },
  workspace: { column: 'workspace_id', dim: 'all' },
  provider: { column: 'provider', dim: 'provider' },
  prompt: { column: 'prompt_id', dim: 'prompt_id' },
};

/** Whether the rollups can answer the filter at all: every filter is a rollup dimension (no trace id, no metadata). */
export function rollupsCanFilter(f: RequestLogFilter): boolean {
  return f.traceId === undefined && !f.metadata?.length;
}

/**
 * The one histogram dimension (and value) whose histograms answer percentiles under the filter,
 * visibility and grouping, or null when none does (a user or cache-status filter, own rows only, or
 * conditions on two dimensions): percentiles then come from the rows.
 */
export function histogramChoice(
  f: RequestLogFilter,
  viewer: LogViewer,
  groupDim?: HistogramDim,
): { dim: HistogramDim; value?: string } | null {
  if (viewer.visibility.rows === 'own' || f.userId !== undefined || f.cacheStatus !== undefined) return null;
  const conditions: Array<[HistogramDim, string | undefined]> = [];
  if (groupDim && groupDim !== 'all') conditions.push([groupDim, undefined]);
  if (f.status !== undefined) conditions.push(['status', String(f.status)]);
  if (f.model !== undefined) conditions.push(['model', f.model]);
  if (f.provider !== undefined) conditions.push(['provider', f.provider]);
  if (f.apiKeyId !== undefined) conditions.push(['api_key_id', f.apiKeyId]);
  const dims = new Set(conditions.map(([d]) => d));
  if (dims.size > 1) return null;
  if (dims.size === 0) return { dim: 'all' };
  const value = conditions.find(([, v]) => v !== undefined)?.[1];
  return { dim: conditions[0]![0], ...(value !== undefined ? { value } : {}) };
}

/** One segment's buckets: an equality and a range on the leading columns of the rollup tables' keys after the organisation. */
function segmentWhere(s: RollupSegment): RawBuilder<boolean> {
  return sql<boolean>`(bucket_ms = ${s.bucketMs} and bucket_start >= ${s.from} and bucket_start < ${s.to})`;
}

/** The rollup rows of one segment in the tenant scope, for the viewer, under the filter (every value a bound parameter). */
function cubeRows(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer, f: RequestLogFilter, segment: RollupSegment) {
  let q = db
    .selectFrom('request_log_rollups')
    .where('organisation_id', '=', scope.organisationId)
    .where(segmentWhere(segment))
    .where('workspace_id', 'in', [...scope.workspaceIds]);
  if (viewer.visibility.rows === 'own') q = q.where('user_id', '=', viewer.userId ?? '\u0000');
  return whereDimensions(q, f);
}

const SUM_NAMES = [
  'requests',
  'errors',
  'cache_hits',
  'cost',
  'total_tokens',
  'prompt_tokens',
  'completion_tokens',
  'latency_sum',
  'first_seen',
  'last_seen',
] as const;
const CUBE_SUMS = SUM_NAMES.map((c) => sql.ref(c));
const ROW_SUMS = [
  sql`1`,
  sql`case when status >= 400 then 1 else 0 end`,
  sql`case when cache_status in ('HIT', 'SEMANTIC HIT') then 1 else 0 end`,
  sql.ref('cost'),
  sql.ref('total_tokens'),
  sql.ref('prompt_tokens'),
  sql.ref('completion_tokens'),
  sql.ref('latency_ms'),
  sql.ref('created_at'),
  sql.ref('created_at'),
];
const aliased = (key: RawBuilder<unknown>, values: readonly RawBuilder<unknown>[]) => [
  key.as('k'),
  ...values.map((v, i) => v.as(SUM_NAMES[i]!)),
];
const ADD_UP = sql`sum(requests) as requests, sum(errors) as errors, sum(cache_hits) as cache_hits, sum(cost) as cost, sum(total_tokens) as total_tokens, sum(prompt_tokens) as prompt_tokens,
  sum(completion_tokens) as completion_tokens, sum(latency_sum) as latency_sum, min(first_seen) as first_seen, max(last_seen) as last_seen`;

function sumsOf(r: Record<string, unknown>): Sums {
  const n = (v: unknown) => Number(v ?? 0);
  return {
    requests: n(r.requests),
    errors: n(r.errors),
    cache_hits: n(r.cache_hits),
    cost: n(r.cost),
    total_tokens: n(r.total_tokens),
    prompt_tokens: n(r.prompt_tokens),
    completion_tokens: n(r.completion_tokens),
    latency_sum: n(r.latency_sum),
    first_seen: r.first_seen == null ? null : Number(r.first_seen),
    last_seen: r.last_seen == null ? null : Number(r.last_seen),
  };
}

/**
 * Sums per key over the planned range: whole buckets from `request_log_rollups`, the partial edges from
 * the rows, both under the same tenant scope, visibility and filter. `cubeKey` and `rowKey` compute the
 * key (a group's value, or a graph point's index) on each side.
 */
export async function sumsByKey(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter,
  plan: RangePlan,
  cubeKey: RawBuilder<unknown>,
  rowKey: RawBuilder<unknown>,
): Promise<Array<{ key: unknown; sums: Sums }>> {
  const parts: RawBuilder<unknown>[] = [];
  // One part per segment (not one OR of them): each is a range read of the key's leading columns.
  for (const segment of plan.rollups) parts.push(sql`${cubeRows(db, scope, viewer, f, segment).select(aliased(cubeKey, CUBE_SUMS))}`);
  for (const r of plan.raw)
    parts.push(sql`${filteredRows(db, scope, viewer, { ...f, startTime: r.from, endTime: r.to }).select(aliased(rowKey, ROW_SUMS))}`);
  if (parts.length === 0) return [];
  const u = sql.join(
    parts.map((p) => sql`select * from (${p}) as p`),
    sql` union all `,
  );
  const result = await sql<Record<string, unknown>>`select k, ${ADD_UP} from (${u}) as u group by k`.execute(db);
  return result.rows.map((r) => ({ key: r.k, sums: sumsOf(r) }));
}

/** A latency histogram being added up, with its count and sum. */
export interface LatencyAcc {
  hist: Histogram;
  requests: number;
  latency_sum: number;
}

/**
 * Latency histograms per key over the planned range: the chosen dimension's histograms of the whole
 * buckets (`request_log_latency`), and the latencies of the edge rows. `histKey` and `rowKey` compute
 * the key on each side; keys are compared as text.
 */
export async function histogramsByKey(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter,
  plan: RangePlan,
  choice: { dim: HistogramDim; value?: string },
  histKey: RawBuilder<unknown>,
  rowKey: RawBuilder<unknown>,
): Promise<Map<string, LatencyAcc>> {
  const out = new Map<string, LatencyAcc>();
  const accOf = (key: unknown) => {
    const k = String(key);
    let acc = out.get(k);
    if (!acc) out.set(k, (acc = { hist: new Map(), requests: 0, latency_sum: 0 }));
    return acc;
  };
  if (plan.rollups.length) {
    const parts = plan.rollups.map((segment) => {
      let q = db
        .selectFrom('request_log_latency')
        .select([histKey.as('k'), 'hist', 'requests', 'latency_sum'])
        .where('organisation_id', '=', scope.organisationId)
        .where(segmentWhere(segment))
        .where('dim', '=', choice.dim)
        .where('workspace_id', 'in', [...scope.workspaceIds]);
      if (choice.value !== undefined) q = q.where('dim_value', '=', choice.value);
      return sql`select * from (${q}) as p`;
    });
    const found = await sql<{
      k: unknown;
      hist: string;
      requests: unknown;
      latency_sum: unknown;
    }>`${sql.join(parts, sql` union all `)}`.execute(db);
    for (const r of found.rows) {
      const acc = accOf(r.k);
      mergeStored(acc.hist, r.hist);
      acc.requests += Number(r.requests);
      acc.latency_sum += Number(r.latency_sum);
    }
  }
  for (const r of plan.raw) {
    const rows = await filteredRows(db, scope, viewer, { ...f, startTime: r.from, endTime: r.to })
      .select([rowKey.as('k'), 'latency_ms'])
      .execute();
    for (const row of rows) {
      const acc = accOf(row.k);
      addTo(acc.hist, row.latency_ms);
      acc.requests += 1;
      acc.latency_sum += Number(row.latency_ms);
    }
  }
  return out;
}

/** p-th percentiles of a histogram (null when empty). */
export function percentiles(acc: LatencyAcc | undefined, ps: readonly number[]): Array<number | null> {
  return acc ? percentilesOf(acc.hist, ps) : ps.map(() => null);
}
