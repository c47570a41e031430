import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, RequestLogLatencyTable, RequestLogRollupsTable, RequestLogsTable } from '../schema.js';
import type { Store, SqliteHandle } from '../store.js';
import { addTo, mergeInto, storedOf, type Histogram } from '../../lib/latency-histogram.js';

/** The bucket widths of the rollups, finest first: a minute, an hour, a day (UTC). */
export const BUCKETS_MS = [60_000, 3_600_000, 86_400_000] as const;

/** The dimensions with a latency histogram of their own (`all`: every row, per workspace). */
export const HISTOGRAM_DIMS = ['all', 'endpoint', 'provider', 'model', 'status', 'api_key_id', 'config_id', 'prompt_id'] as const;

/** A dimension with its own latency histogram. */
export type HistogramDim = (typeof HISTOGRAM_DIMS)[number];

/** What a rollup needs of a request-log row. */
export type RollupSource = Pick<
  RequestLogsTable,
  'organisation_id' | 'workspace_id' | 'api_key_id' | 'user_id' | 'endpoint' | 'provider' | 'model' | 'status' | 'cache_status' | 'config_id' | 'prompt_id' | 'cost' | 'total_tokens' | 'prompt_tokens' | 'completion_tokens' | 'latency_ms' | 'created_at'
>;

/** The request-log columns a rollup reads. */
export const ROLLUP_SOURCE_COLUMNS = [
  'organisation_id', 'workspace_id', 'api_key_id', 'user_id', 'endpoint', 'provider', 'model', 'status', 'cache_status', 'config_id', 'prompt_id', 'cost', 'total_tokens', 'prompt_tokens', 'completion_tokens', 'latency_ms', 'created_at',
] as const satisfies ReadonlyArray<keyof RollupSource>;

const CUBE_KEY = ['organisation_id', 'bucket_ms', 'bucket_start', 'workspace_id', 'api_key_id', 'user_id', 'endpoint', 'provider', 'model', 'status', 'cache_status', 'config_id', 'prompt_id'] as const;
const CUBE_VALUES = ['requests', 'errors', 'cache_hits', 'cost', 'total_tokens', 'prompt_tokens', 'completion_tokens', 'latency_sum', 'first_seen', 'last_seen'] as const;
const CUBE_COLUMNS = [...CUBE_KEY, ...CUBE_VALUES] as const;
const LATENCY_KEY = ['organisation_id', 'bucket_ms', 'dim', 'bucket_start', 'workspace_id', 'dim_value'] as const;
const LATENCY_COLUMNS = [...LATENCY_KEY, 'requests', 'latency_sum', 'hist'] as const;

type LatencyAcc = Omit<RequestLogLatencyTable, 'hist'> & { bins: Histogram };

/** The rollup rows of some request-log rows, one per key (ready for additive upserts), in key order. */
export interface RollupRows {
  cube: RequestLogRollupsTable[];
  latency: RequestLogLatencyTable[];
}

const isHit = (cacheStatus: string | null) => cacheStatus === 'HIT' || cacheStatus === 'SEMANTIC HIT';

function addCube(into: Map<string, RequestLogRollupsTable>, key: string, row: RequestLogRollupsTable): void {
  const acc = into.get(key);
  if (!acc) {
    into.set(key, { ...row });
    return;
  }
  acc.requests += row.requests;
  acc.errors += row.errors;
  acc.cache_hits += row.cache_hits;
  acc.cost += row.cost;
  acc.total_tokens += row.total_tokens;
  acc.prompt_tokens += row.prompt_tokens;
  acc.completion_tokens += row.completion_tokens;
  acc.latency_sum += row.latency_sum;
  if (row.first_seen < acc.first_seen) acc.first_seen = row.first_seen;
  if (row.last_seen > acc.last_seen) acc.last_seen = row.last_seen;
}

function addLatency(into: Map<string, LatencyAcc>, key: string, row: Omit<LatencyAcc, 'bins'>, bins: Histogram | number): void {
  let acc = into.get(key);
  if (!acc) {
    acc = { ...row, requests: 0, latency_sum: 0, bins: new Map() };
    into.set(key, acc);
  }
  acc.requests += row.requests;
  acc.latency_sum += row.latency_sum;
  if (typeof bins === 'number') addTo(acc.bins, bins);
  else mergeInto(acc.bins, bins);
}

const keyOf = (values: ReadonlyArray<string | number>) => values.join('\u0001');

/**
 * Adds up request-log rows into rollup rows: the minute buckets from the rows, then the hour and day
 * buckets from the minutes. Absent dimension values become ''.
 */
export function rollupRowsOf(rows: readonly RollupSource[]): RollupRows {
  const minuteCube = new Map<string, RequestLogRollupsTable>();
  const minuteLatency = new Map<string, LatencyAcc>();
  const minute = BUCKETS_MS[0];
  for (const r of rows) {
    const createdAt = Number(r.created_at);
    const bucket_start = createdAt - (((createdAt % minute) + minute) % minute);
    const cube: RequestLogRollupsTable = {
      organisation_id: r.organisation_id, bucket_ms: minute, bucket_start, workspace_id: r.workspace_id, api_key_id: r.api_key_id ?? '', user_id: r.user_id ?? '', endpoint: r.endpoint,
      provider: r.provider ?? '', model: r.model ?? '', status: r.status, cache_status: r.cache_status ?? '', config_id: r.config_id ?? '', prompt_id: r.prompt_id ?? '',
      requests: 1, errors: r.status >= 400 ? 1 : 0, cache_hits: isHit(r.cache_status) ? 1 : 0, cost: Number(r.cost), total_tokens: r.total_tokens, prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens, latency_sum: r.latency_ms, first_seen: createdAt, last_seen: createdAt,
    };
    addCube(minuteCube, keyOf(CUBE_KEY.map((c) => cube[c])), cube);
    for (const dim of HISTOGRAM_DIMS) {
      const dim_value = dim === 'all' ? '' : String(cube[dim]);
      const base = { organisation_id: r.organisation_id, bucket_ms: minute, dim, bucket_start, workspace_id: r.workspace_id, dim_value, requests: 1, latency_sum: r.latency_ms };
      addLatency(minuteLatency, keyOf([r.organisation_id, dim, bucket_start, r.workspace_id, dim_value]), base, r.latency_ms);
    }
  }
  const cube = [...minuteCube.values()];
  const latency = [...minuteLatency.values()];
  for (const width of BUCKETS_MS.slice(1)) {
    const coarseCube = new Map<string, RequestLogRollupsTable>();
    for (const m of minuteCube.values()) {
      const row = { ...m, bucket_ms: width, bucket_start: m.bucket_start - (((m.bucket_start % width) + width) % width) };
      addCube(coarseCube, keyOf(CUBE_KEY.map((c) => row[c])), row);
    }
    const coarseLatency = new Map<string, LatencyAcc>();
    for (const m of minuteLatency.values()) {
      const bucket_start = m.bucket_start - (((m.bucket_start % width) + width) % width);
      addLatency(coarseLatency, keyOf([m.organisation_id, m.dim, bucket_start, m.workspace_id, m.dim_value]), { ...m, bucket_ms: width, bucket_start }, m.bins);
    }
    cube.push(...coarseCube.values());
    latency.push(...coarseLatency.values());
  }
  // One order for every writer, so concurrent upserts on PostgreSQL take their row locks in the same order.
  const cubeKey = (r: RequestLogRollupsTable) => keyOf(CUBE_KEY.map((c) => r[c]));
  const latencyKey = (r: LatencyAcc) => keyOf(LATENCY_KEY.map((c) => r[c]));
  return {
    cube: cube.map((r) => [cubeKey(r), r] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r),
    latency: latency
      .map((r) => [latencyKey(r), r] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, { bins, ...r }]) => ({ ...r, hist: storedOf(bins) })),
  };
}

/** The `on conflict … do update` of each table: sums add up, first/last seen widen, histograms merge bin by bin. */
function cubeUpsert(pg: boolean): string {
  const [min, max] = pg ? ['least', 'greatest'] : ['min', 'max'];
  const sums = CUBE_VALUES.filter((c) => c !== 'first_seen' && c !== 'last_seen').map((c) => `${c} = request_log_rollups.${c} + excluded.${c}`);
  return `on conflict (${CUBE_KEY.join(', ')}) do update set ${sums.join(', ')}, first_seen = ${min}(request_log_rollups.first_seen, excluded.first_seen), last_seen = ${max}(request_log_rollups.last_seen, excluded.last_seen)`;
}

function latencyUpsert(pg: boolean): string {
  const merged = pg
    ? `(select jsonb_object_agg(k, n)::text from (select key as k, sum(value::bigint) as n from (select * from jsonb_each_text(request_log_latency.hist::jsonb) union all select * from jsonb_each_text(excluded.hist::jsonb)) u group by key) m)`
    : `(select json_group_object(k, n) from (select key as k, sum(value) as n from (select key, value from json_each(request_log_latency.hist) union all select key, value from json_each(excluded.hist)) group by key))`;
  return `on conflict (${LATENCY_KEY.join(', ')}) do update set requests = request_log_latency.requests + excluded.requests, latency_sum = request_log_latency.latency_sum + excluded.latency_sum, hist = ${merged}`;
}

const sqliteWriters = new WeakMap<object, (rollups: RollupRows) => void>();

/**
 * The SQLite writer of rollup rows (cached prepared upserts). It runs inside the caller's
 * better-sqlite3 transaction, synchronously.
 */
export function sqliteRollupWriter(db: SqliteHandle): (rollups: RollupRows) => void {
  let write = sqliteWriters.get(db);
  if (write) return write;
  const cube = db.prepare(`insert into request_log_rollups (${CUBE_COLUMNS.join(', ')}) values (${CUBE_COLUMNS.map(() => '?').join(', ')}) ${cubeUpsert(false)}`);
  const latency = db.prepare(`insert into request_log_latency (${LATENCY_COLUMNS.join(', ')}) values (${LATENCY_COLUMNS.map(() => '?').join(', ')}) ${latencyUpsert(false)}`);
  write = (rollups) => {
    for (const r of rollups.cube) cube.run(CUBE_COLUMNS.map((c) => r[c]));
    for (const r of rollups.latency) latency.run(LATENCY_COLUMNS.map((c) => r[c]));
  };
  sqliteWriters.set(db, write);
  return write;
}

/** Rows per multi-row upsert on PostgreSQL (23 parameters each: well under 65,535). */
const PG_ROWS_PER_UPSERT = 1000;

/** Upserts rollup rows on PostgreSQL within the caller's transaction (multi-row statements, in key order). */
export async function writeRollupsPostgres(trx: Transaction<Database> | Kysely<Database>, rollups: RollupRows): Promise<void> {
  const tables = [
    { name: 'request_log_rollups', columns: CUBE_COLUMNS as readonly string[], rows: rollups.cube as unknown as Array<Record<string, unknown>>, upsert: cubeUpsert(true) },
    { name: 'request_log_latency', columns: LATENCY_COLUMNS as readonly string[], rows: rollups.latency as unknown as Array<Record<string, unknown>>, upsert: latencyUpsert(true) },
  ];
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i += PG_ROWS_PER_UPSERT) {
      const chunk = t.rows.slice(i, i + PG_ROWS_PER_UPSERT);
      const values = sql.join(chunk.map((r) => sql`(${sql.join(t.columns.map((c) => r[c]))})`));
      await sql`insert into ${sql.table(t.name)} (${sql.join(t.columns.map((c) => sql.ref(c)))}) values ${values} ${sql.raw(t.upsert)}`.execute(trx);
    }
  }
}

/** Rows the backfill adds per transaction by default. */
export const BACKFILL_BATCH_ROWS = 2000;

type BackfillRow = RollupSource & { id: string };

/**
 * Adds the rollups of up to `limit` request-log rows that have none yet (`rolled_up` 0: rows written
 * before migration 0031, or by an older replica), oldest first after the cursor of
 * `request_log_rollup_state`; the upserts and the cursor move in one transaction, so each row is added
 * once even when the job is interrupted or runs on several replicas (on PostgreSQL the cursor row is
 * locked for the batch). Returns how many rows it added (fewer than `limit`: it is done for now).
 */
export async function backfillRollups(store: Store, limit = BACKFILL_BATCH_ROWS): Promise<number> {
  if (store.sqlite) {
    const select = `select ${['id', ...ROLLUP_SOURCE_COLUMNS].join(', ')} from request_logs where rolled_up = 0 and (created_at > ? or (created_at = ? and id > ?)) order by created_at, id limit ?`;
    const db = store.sqlite;
    const write = sqliteRollupWriter(db);
    const state = db.prepare('select backfill_created_at, backfill_id from request_log_rollup_state where id = 1');
    const rowsAfter = db.prepare(select);
    const move = db.prepare('update request_log_rollup_state set backfill_created_at = ?, backfill_id = ? where id = 1');
    return db.transaction(() => {
      const cursor = state.get() as { backfill_created_at: number; backfill_id: string };
      const rows = rowsAfter.all(cursor.backfill_created_at, cursor.backfill_created_at, cursor.backfill_id, limit) as BackfillRow[];
      if (rows.length === 0) return 0;
      write(rollupRowsOf(rows));
      const last = rows[rows.length - 1]!;
      move.run(last.created_at, last.id);
      return rows.length;
    })();
  }
  return store.db.transaction().execute(async (trx) => {
    const cursor = await sql<{ backfill_created_at: number; backfill_id: string }>`select backfill_created_at, backfill_id from request_log_rollup_state where id = 1 for update`.execute(trx);
    const c = cursor.rows[0]!;
    const found = await trx
      .selectFrom('request_logs')
      .select(['id', ...ROLLUP_SOURCE_COLUMNS])
      .where('rolled_up', '=', 0)
      .where((eb) => eb.or([eb('created_at', '>', Number(c.backfill_created_at)), eb.and([eb('created_at', '=', Number(c.backfill_created_at)), eb('id', '>', c.backfill_id)])]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    if (found.length === 0) return 0;
    await writeRollupsPostgres(trx, rollupRowsOf(found));
    const last = found[found.length - 1]!;
    await trx.updateTable('request_log_rollup_state').set({ backfill_created_at: Number(last.created_at), backfill_id: last.id }).where('id', '=', 1).execute();
    return found.length;
  });
}

/** Buckets deleted per statement by the retention job (whole buckets: a minute holds one row per combination in use). */
export const RETENTION_BUCKETS_PER_STATEMENT = 60;

/**
 * Deletes, for one organisation and bucket width, at most `RETENTION_BUCKETS_PER_STATEMENT` whole
 * buckets that ended at or before `before` (ms), oldest first, from both rollup tables; returns how
 * many buckets went. A bucket that straddles `before` stays (a query never starts before the
 * retention, and reads such a bucket's later part from finer buckets or rows).
 */
export async function deleteRollupBucketsBefore(db: Kysely<Database>, organisationId: string, bucketMs: number, before: number): Promise<number> {
  const last = before - bucketMs;
  const starts = await db
    .selectFrom('request_log_rollups')
    .select('bucket_start')
    .distinct()
    .where('organisation_id', '=', organisationId)
    .where('bucket_ms', '=', bucketMs)
    .where('bucket_start', '<=', last)
    .orderBy('bucket_start')
    .limit(RETENTION_BUCKETS_PER_STATEMENT)
    .execute();
  if (starts.length === 0) return 0;
  const through = Number(starts[starts.length - 1]!.bucket_start);
  await db.transaction().execute(async (trx) => {
    for (const table of ['request_log_rollups', 'request_log_latency'] as const) {
      await trx.deleteFrom(table).where('organisation_id', '=', organisationId).where('bucket_ms', '=', bucketMs).where('bucket_start', '<=', through).execute();
    }
  });
  return starts.length;
}
