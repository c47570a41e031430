import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, RequestLogLatencyTable, RequestLogRollupsTable, RequestLogsTable } from '../schema.js';
import type { Store, SqliteHandle } from '../store.js';
import { binOf, mergeHistogramTexts } from '../../../foundation/lib/latency-histogram.js';

/** The bucket widths of the rollups, finest first: a minute, an hour, a day (UTC). */
export const BUCKETS_MS = [60_000, 3_600_000, 86_400_000] as const;

/** The dimensions with a latency histogram of their own (`all`: every row, per workspace). */
export const HISTOGRAM_DIMS = ['all', 'endpoint', 'provider', 'model', 'status', 'api_key_id', 'config_id', 'prompt_id'] as const;

/** A dimension with its own latency histogram. */
export type HistogramDim = (typeof HISTOGRAM_DIMS)[number];

/** What a rollup needs of a request-log row. */
export type RollupSource = Pick<
  RequestLogsTable,
  | 'organisation_id'
  | 'workspace_id'
  | 'api_key_id'
  | 'user_id'
  | 'endpoint'
  | 'provider'
  | 'model'
  | 'status'
  | 'cache_status'
  | 'config_id'
  | 'prompt_id'
  | 'cost'
  | 'total_tokens'
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'latency_ms'
  | 'created_at'
>;

/** The request-log columns a rollup reads. */
export const ROLLUP_SOURCE_COLUMNS = [
  'organisation_id',
  'workspace_id',
  'api_key_id',
  'user_id',
  'endpoint',
  'provider',
  'model',
  'status',
  'cache_status',
  'config_id',
  'prompt_id',
  'cost',
  'total_tokens',
  'prompt_tokens',
  'completion_tokens',
  'latency_ms',
  'created_at',
] as const satisfies ReadonlyArray<keyof RollupSource>;

const CUBE_KEY = [
  'organisation_id',
  'bucket_ms',
  'bucket_start',
  'workspace_id',
  'api_key_id',
  'user_id',
  'endpoint',
  'provider',
  'model',
  'status',
  'cache_status',
  'config_id',
  'prompt_id',
] as const;
const CUBE_VALUES = [
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
const CUBE_COLUMNS = [...CUBE_KEY, ...CUBE_VALUES] as const;
const LATENCY_KEY = ['organisation_id', 'bucket_ms', 'dim', 'bucket_start', 'workspace_id', 'dim_value'] as const;
const LATENCY_COLUMNS = [...LATENCY_KEY, 'requests', 'latency_sum', 'hist'] as const;

/** The rollups of one bucket of one workspace being added up: the cube by its dimensions, a histogram per value of each dimension. */
interface BucketAcc {
  key: string;
  organisation_id: string;
  bucket_ms: number;
  bucket_start: number;
  workspace_id: string;
  cube: Map<string, RequestLogRollupsTable>;
  latency: Array<Map<string, { requests: number; latency_sum: number; bins: Record<number, number> }>>;
}

/** The rollup rows of some request-log rows, one per key (ready for additive upserts), in key order. */
export interface RollupRows {
  cube: RequestLogRollupsTable[];
  latency: RequestLogLatencyTable[];
}

const isHit = (cacheStatus: string | null) => cacheStatus === 'HIT' || cacheStatus === 'SEMANTIC HIT';
const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const SEP = '\u0001';

/** The rows of one minute, workspace and combination of dimensions, added up (the first pass of `rollupRowsOf`). */
interface MinuteGroup {
  minute: number;
  /** The cube row of the group's minute (its sums are the group's). */
  cube: RequestLogRollupsTable;
  /** The dimension values of the histograms, in `HISTOGRAM_DIMS` order. */
  values: string[];
  /** Latency bin → rows. */
  bins: Map<number, number>;
}

/**
 * Adds up request-log rows into rollup rows for every bucket width (absent dimension values become
 * ''). A batch of the log holds many rows of few kinds, so the rows are first added up per minute,
 * workspace and combination of dimensions (one key and one map lookup per row); those groups are then
 * added into each width's cube rows and into the latency histogram of each dimension value.
 */
export function rollupRowsOf(rows: readonly RollupSource[]): RollupRows {
  const minutes = new Map<string, MinuteGroup>();
  const minuteMs = BUCKETS_MS[0];
  for (const r of rows) {
    const createdAt = Number(r.created_at);
    const minute = createdAt - (((createdAt % minuteMs) + minuteMs) % minuteMs);
    const api_key_id = r.api_key_id ?? '',
      user_id = r.user_id ?? '',
      provider = r.provider ?? '',
      model = r.model ?? '';
    const cache_status = r.cache_status ?? '',
      config_id = r.config_id ?? '',
      prompt_id = r.prompt_id ?? '';
    const key = `${r.organisation_id}${SEP}${minute}${SEP}${r.workspace_id}${SEP}${api_key_id}${SEP}${user_id}${SEP}${r.endpoint}${SEP}${provider}${SEP}${model}${SEP}${r.status}${SEP}${cache_status}${SEP}${config_id}${SEP}${prompt_id}`;
    const errors = r.status >= 400 ? 1 : 0;
    const hits = isHit(r.cache_status) ? 1 : 0;
    const cost = Number(r.cost);
    const bin = binOf(r.latency_ms);
    const g = minutes.get(key);
    if (g) {
      const c = g.cube;
      c.requests += 1;
      c.errors += errors;
      c.cache_hits += hits;
      c.cost += cost;
      c.total_tokens += r.total_tokens;
      c.prompt_tokens += r.prompt_tokens;
      c.completion_tokens += r.completion_tokens;
      c.latency_sum += r.latency_ms;
      if (createdAt < c.first_seen) c.first_seen = createdAt;
      if (createdAt > c.last_seen) c.last_seen = createdAt;
      g.bins.set(bin, (g.bins.get(bin) ?? 0) + 1);
    } else {
      minutes.set(key, {
        minute,
        cube: {
          organisation_id: r.organisation_id,
          bucket_ms: minuteMs,
          bucket_start: minute,
          workspace_id: r.workspace_id,
          api_key_id,
          user_id,
          endpoint: r.endpoint,
          provider,
          model,
          status: r.status,
          cache_status,
          config_id,
          prompt_id,
          requests: 1,
          errors,
          cache_hits: hits,
          cost,
          total_tokens: r.total_tokens,
          prompt_tokens: r.prompt_tokens,
          completion_tokens: r.completion_tokens,
          latency_sum: r.latency_ms,
          first_seen: createdAt,
          last_seen: createdAt,
        },
        values: ['', r.endpoint, provider, model, String(r.status), api_key_id, config_id, prompt_id],
        bins: new Map([[bin, 1]]),
      });
    }
  }
  const buckets = new Map<string, BucketAcc>();
  for (const g of minutes.values()) {
    const m = g.cube;
    const dimsKey = [m.api_key_id, m.user_id, m.endpoint, m.provider, m.model, m.status, m.cache_status, m.config_id, m.prompt_id].join(
      SEP,
    );
    for (const width of BUCKETS_MS) {
      const bucket_start = g.minute - (((g.minute % width) + width) % width);
      const key = `${m.organisation_id}${SEP}${width}${SEP}${bucket_start}${SEP}${m.workspace_id}`;
      let b = buckets.get(key);
      if (!b) {
        b = {
          key,
          organisation_id: m.organisation_id,
          bucket_ms: width,
          bucket_start,
          workspace_id: m.workspace_id,
          cube: new Map(),
          latency: HISTOGRAM_DIMS.map(() => new Map()),
        };
        buckets.set(key, b);
      }
      const c = b.cube.get(dimsKey);
      if (c) {
        c.requests += m.requests;
        c.errors += m.errors;
        c.cache_hits += m.cache_hits;
        c.cost += m.cost;
        c.total_tokens += m.total_tokens;
        c.prompt_tokens += m.prompt_tokens;
        c.completion_tokens += m.completion_tokens;
        c.latency_sum += m.latency_sum;
        if (m.first_seen < c.first_seen) c.first_seen = m.first_seen;
        if (m.last_seen > c.last_seen) c.last_seen = m.last_seen;
      } else {
        b.cube.set(dimsKey, { ...m, bucket_ms: width, bucket_start });
      }
      for (let d = 0; d < g.values.length; d++) {
        const latency = b.latency[d]!;
        let acc = latency.get(g.values[d]!);
        if (!acc) latency.set(g.values[d]!, (acc = { requests: 0, latency_sum: 0, bins: {} }));
        acc.requests += m.requests;
        acc.latency_sum += m.latency_sum;
        for (const [bin, n] of g.bins) acc.bins[bin] = (acc.bins[bin] ?? 0) + n;
      }
    }
  }
  // One order for every writer, so concurrent upserts on PostgreSQL take their row locks in the same order.
  const out: RollupRows = { cube: [], latency: [] };
  const ordered = [...buckets.values()].sort(byKey);
  for (const b of ordered) {
    for (const k of [...b.cube.keys()].sort()) out.cube.push(b.cube.get(k)!);
  }
  for (let d = 0; d < HISTOGRAM_DIMS.length; d++) {
    const dim = HISTOGRAM_DIMS[d]!;
    for (const b of [...ordered].sort(
      (x, y) =>
        x.bucket_ms - y.bucket_ms ||
        x.bucket_start - y.bucket_start ||
        (x.workspace_id < y.workspace_id ? -1 : x.workspace_id > y.workspace_id ? 1 : 0),
    )) {
      const m = b.latency[d]!;
      for (const v of [...m.keys()].sort()) {
        const acc = m.get(v)!;
        out.latency.push({
          organisation_id: b.organisation_id,
          bucket_ms: b.bucket_ms,
          dim,
          bucket_start: b.bucket_start,
          workspace_id: b.workspace_id,
          dim_value: v,
          requests: acc.requests,
          latency_sum: acc.latency_sum,
          hist: JSON.stringify(acc.bins),
        });
      }
    }
  }
  return out;
}

/** The `on conflict … do update` of each table: sums add up, first/last seen widen, histograms merge bin by bin. */
function cubeUpsert(pg: boolean): string {
  const [min, max] = pg ? ['least', 'greatest'] : ['min', 'max'];
  const sums = CUBE_VALUES.filter((c) => c !== 'first_seen' && c !== 'last_seen').map(
    (c) => `${c} = request_log_rollups.${c} + excluded.${c}`,
  );
  return `on conflict (${CUBE_KEY.join(', ')}) do update set ${sums.join(', ')}, first_seen = ${min}(request_log_rollups.first_seen, excluded.first_seen), last_seen = ${max}(request_log_rollups.last_seen, excluded.last_seen)`;
}

/** The SQL function the SQLite writer merges stored histograms with (`mergeHistogramTexts`, registered on its connection). */
const SQLITE_MERGE_HISTOGRAMS = 'gateway_merge_histograms';

function latencyUpsert(pg: boolean): string {
  const merged = pg
    ? `(select jsonb_object_agg(k, n)::text from (select key as k, sum(value::bigint) as n from (select * from jsonb_each_text(request_log_latency.hist::jsonb) union all select * from jsonb_each_text(excluded.hist::jsonb)) u group by key) m)`
    : `${SQLITE_MERGE_HISTOGRAMS}(request_log_latency.hist, excluded.hist)`;
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
  db.function(SQLITE_MERGE_HISTOGRAMS, { deterministic: true }, mergeHistogramTexts);
  const cube = db.prepare(
    `insert into request_log_rollups (${CUBE_COLUMNS.join(', ')}) values (${CUBE_COLUMNS.map(() => '?').join(', ')}) ${cubeUpsert(false)}`,
  );
  const latency = db.prepare(
    `insert into request_log_latency (${LATENCY_COLUMNS.join(', ')}) values (${LATENCY_COLUMNS.map(() => '?').join(', ')}) ${latencyUpsert(false)}`,
  );
  write = (rollups) => {
    for (const r of rollups.cube) cube.run(CUBE_COLUMNS.map((c) => r[c]));
    for (const r of rollups.latency) latency.run(LATENCY_COLUMNS.map((c) => r[c]));
  };
  sqliteWriters.set(db, write);
  return write;
}

/** Rows per upsert statement on PostgreSQL (one array parameter per column, whatever the row count). */
const PG_ROWS_PER_UPSERT = 5000;

/** The PostgreSQL type of each rollup column's array parameter. */
const PG_TYPES: Record<string, string> = {
  bucket_ms: 'int4',
  status: 'int4',
  cost: 'float8',
  bucket_start: 'int8',
  requests: 'int8',
  errors: 'int8',
  cache_hits: 'int8',
  total_tokens: 'int8',
  prompt_tokens: 'int8',
  completion_tokens: 'int8',
  latency_sum: 'int8',
  first_seen: 'int8',
  last_seen: 'int8',
};

/**
 * Upserts rollup rows on PostgreSQL within the caller's transaction, in key order: each statement
 * binds one array per column and `unnest`s them (a few parameters to parse and bind, not one per value).
 */
export async function writeRollupsPostgres(trx: Transaction<Database> | Kysely<Database>, rollups: RollupRows): Promise<void> {
  const tables = [
    {
      name: 'request_log_rollups',
      columns: CUBE_COLUMNS as readonly string[],
      rows: rollups.cube as unknown as Array<Record<string, unknown>>,
      upsert: cubeUpsert(true),
    },
    {
      name: 'request_log_latency',
      columns: LATENCY_COLUMNS as readonly string[],
      rows: rollups.latency as unknown as Array<Record<string, unknown>>,
      upsert: latencyUpsert(true),
    },
  ];
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i += PG_ROWS_PER_UPSERT) {
      const chunk = t.rows.slice(i, i + PG_ROWS_PER_UPSERT);
      const arrays = t.columns.map((c) => sql`${chunk.map((r) => r[c])}::${sql.raw(PG_TYPES[c] ?? 'text')}[]`);
      await sql`insert into ${sql.table(t.name)} (${sql.join(t.columns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)}) ${sql.raw(t.upsert)}`.execute(
        trx,
      );
    }
  }
}

/** The backfill's cursor on SQLite (the last row it added). */
const SQLITE_BACKFILL_CURSOR = 'select backfill_created_at, backfill_id from request_log_rollup_state where id = 1';
/** The rows the backfill has yet to add on SQLite: no rollups, after the cursor `(?, ?)`. */
const SQLITE_BACKFILL_ROWS = 'from request_logs where rolled_up = 0 and (created_at, id) > (?, ?)';

type BackfillCursor = { backfill_created_at: number; backfill_id: string };

/** Whether a SQLite store holds rows the backfill has yet to add. */
function sqliteBackfillPending(db: SqliteHandle): boolean {
  const cursor = db.prepare(SQLITE_BACKFILL_CURSOR).get() as BackfillCursor;
  return db.prepare(`select 1 ${SQLITE_BACKFILL_ROWS} limit 1`).get(cursor.backfill_created_at, cursor.backfill_id) !== undefined;
}

/** Rows the backfill adds per transaction by default. */
export const BACKFILL_BATCH_ROWS = 2000;

type BackfillRow = RollupSource & { id: string };

/**
 * Adds the rollups of up to `limit` request-log rows that have none yet (`rolled_up` 0: rows written
 * before migration 0031, or by an older replica), oldest first after the cursor of
 * `request_log_rollup_state`; the upserts and the cursor move in one transaction, so each row is added
 * once even when the job is interrupted or runs on several replicas (on PostgreSQL the cursor row is
 * locked for the batch). Returns how many rows it added (fewer than `limit`: it is done for now). Run in
 * the store's request-log thread when it has one.
 */
export async function backfillRollups(store: Store, limit = BACKFILL_BATCH_ROWS): Promise<number> {
  // Once done (the usual case) a run is one indexed read, made here: it does not start the thread for nothing.
  if (store.requestLogThread) return sqliteBackfillPending(store.sqlite!) ? store.requestLogThread.run('backfillRollups', limit) : 0;
  if (store.sqlite) {
    const db = store.sqlite;
    const write = sqliteRollupWriter(db);
    const state = db.prepare(SQLITE_BACKFILL_CURSOR);
    const rowsAfter = db.prepare(
      `select ${['id', ...ROLLUP_SOURCE_COLUMNS].join(', ')} ${SQLITE_BACKFILL_ROWS} order by created_at, id limit ?`,
    );
    const move = db.prepare('update request_log_rollup_state set backfill_created_at = ?, backfill_id = ? where id = 1');
    return db
      .transaction(() => {
        const cursor = state.get() as BackfillCursor;
        const rows = rowsAfter.all(cursor.backfill_created_at, cursor.backfill_id, limit) as BackfillRow[];
        if (rows.length === 0) return 0;
        write(rollupRowsOf(rows));
        const last = rows[rows.length - 1]!;
        move.run(last.created_at, last.id);
        return rows.length;
      })
      .immediate();
  }
  return store.db.transaction().execute(async (trx) => {
    const cursor = await sql<{
      backfill_created_at: number;
      backfill_id: string;
    }>`select backfill_created_at, backfill_id from request_log_rollup_state where id = 1 for update`.execute(trx);
    const c = cursor.rows[0]!;
    const found = await trx
      .selectFrom('request_logs')
      .select(['id', ...ROLLUP_SOURCE_COLUMNS])
      .where('rolled_up', '=', 0)
      // A row-value comparison: one range read of the partial index from the cursor on (an OR of the two
      // conditions is read from the index's start, ever longer as the backfill goes).
      .where(sql<boolean>`(created_at, id) > (${Number(c.backfill_created_at)}, ${c.backfill_id})`)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    if (found.length === 0) return 0;
    await writeRollupsPostgres(trx, rollupRowsOf(found));
    const last = found[found.length - 1]!;
    await trx
      .updateTable('request_log_rollup_state')
      .set({ backfill_created_at: Number(last.created_at), backfill_id: last.id })
      .where('id', '=', 1)
      .execute();
    return found.length;
  });
}

/** Buckets deleted per statement by the retention job (whole buckets: a minute holds one row per combination in use). */
export const RETENTION_BUCKETS_PER_STATEMENT = 60;

/**
 * Deletes, for one organisation and bucket width, at most `RETENTION_BUCKETS_PER_STATEMENT` whole
 * buckets that ended at or before `before` (ms), oldest first, from both rollup tables; returns how
 * many buckets went. A bucket that straddles `before` stays (a query never starts before the
 * retention, and reads such a bucket's later part from finer buckets or rows). Run in the store's
 * request-log thread when it has one.
 */
export async function deleteRollupBucketsBefore(store: Store, organisationId: string, bucketMs: number, before: number): Promise<number> {
  if (store.requestLogThread) return store.requestLogThread.run('deleteRollupBucketsBefore', organisationId, bucketMs, before);
  const db = store.db;
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
      await trx
        .deleteFrom(table)
        .where('organisation_id', '=', organisationId)
        .where('bucket_ms', '=', bucketMs)
        .where('bucket_start', '<=', through)
        .execute();
    }
  });
  return starts.length;
}
