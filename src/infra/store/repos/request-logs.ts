import { PostgresAdapter, sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { SqliteHandle, Store } from '../store.js';
import type { Database, RequestLogRollupsTable, RequestLogsTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { rollupRowsOf, sqliteRollupWriter, writeRollupsPostgres } from './request-log-rollups.js';

/** One row of the request log. */
export type RequestLogRow = RequestLogsTable;

export const COLUMNS = [
  'id',
  'organisation_id',
  'workspace_id',
  'api_key_id',
  'user_id',
  'trace_id',
  'endpoint',
  'provider',
  'model',
  'status',
  'stream',
  'cache_status',
  'config_id',
  'prompt_id',
  'target_path',
  'retry_count',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost',
  'latency_ms',
  'metadata',
  'error',
  'hook_results',
  'created_at',
  'unit_prices',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'attempts',
  'ttfb_ms',
  'request_body',
  'response_body',
  'rolled_up',
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

/**
 * A row's values in `COLUMNS` order. A column the row leaves out is null, except the token details (NOT
 * NULL, default 0, as in migration 0024) and `rolled_up` (1: the batch's rollups are written with it).
 * Written out by name rather than read with `row[column]` in a loop: a computed key over 34 columns is a
 * megamorphic keyed load per value (it showed in profiles of the request log); a test checks the order
 * against `COLUMNS` and the defaults.
 */
export function rowValues(r: RequestLogRow, out: unknown[], at: number): void {
  out[at] = r.id ?? null;
  out[at + 1] = r.organisation_id ?? null;
  out[at + 2] = r.workspace_id ?? null;
  out[at + 3] = r.api_key_id ?? null;
  out[at + 4] = r.user_id ?? null;
  out[at + 5] = r.trace_id ?? null;
  out[at + 6] = r.endpoint ?? null;
  out[at + 7] = r.provider ?? null;
  out[at + 8] = r.model ?? null;
  out[at + 9] = r.status ?? null;
  out[at + 10] = r.stream ?? null;
  out[at + 11] = r.cache_status ?? null;
  out[at + 12] = r.config_id ?? null;
  out[at + 13] = r.prompt_id ?? null;
  out[at + 14] = r.target_path ?? null;
  out[at + 15] = r.retry_count ?? null;
  out[at + 16] = r.prompt_tokens ?? null;
  out[at + 17] = r.completion_tokens ?? null;
  out[at + 18] = r.total_tokens ?? null;
  out[at + 19] = r.cost ?? null;
  out[at + 20] = r.latency_ms ?? null;
  out[at + 21] = r.metadata ?? null;
  out[at + 22] = r.error ?? null;
  out[at + 23] = r.hook_results ?? null;
  out[at + 24] = r.created_at ?? null;
  out[at + 25] = r.unit_prices ?? null;
  out[at + 26] = r.cached_tokens ?? 0;
  out[at + 27] = r.cache_write_tokens ?? 0;
  out[at + 28] = r.reasoning_tokens ?? 0;
  out[at + 29] = r.attempts ?? null;
  out[at + 30] = r.ttfb_ms ?? null;
  out[at + 31] = r.request_body ?? null;
  out[at + 32] = r.response_body ?? null;
  out[at + 33] = r.rolled_up ?? 1;
}

/** Rows per multi-row INSERT on SQLite (34 columns each: well under SQLite's 32,766 parameters). */
const SQLITE_ROWS_PER_INSERT = 32;

const sqliteInserts = new WeakMap<object, (rows: RequestLogRow[]) => void>();

/**
 * One transaction per batch: multi-row INSERTs with positional parameters, then single rows for the
 * rest, then the batch's analytics rollups. The INSERTs are `or fail`: with the default (`abort`) a
 * multi-row INSERT inside a transaction makes SQLite keep a statement journal to undo that statement
 * alone, and past 64 KiB it spills to a temporary file (about one 4 KiB write per logged request under
 * load, seen with strace); with `fail` there is none, and a refused row still rolls the whole batch back
 * (the transaction throws), which is all the writer needs. The transaction begins `IMMEDIATE` (see
 * `ImmediateSqliteDialect`). The request log's worker thread runs this on its own connection.
 */
export function sqliteRequestLogInserter(db: SqliteHandle): (rows: RequestLogRow[]) => void {
  const writeRollups = sqliteRollupWriter(db);
  const row = `(${COLUMNS.map(() => '?').join(', ')})`;
  const prefix = `insert or fail into request_logs (${COLUMNS.join(', ')}) values `;
  const one = db.prepare(prefix + row);
  const many = db.prepare(prefix + Array.from({ length: SQLITE_ROWS_PER_INSERT }, () => row).join(', '));
  const params: unknown[] = new Array(SQLITE_ROWS_PER_INSERT * COLUMNS.length);
  const insert = db.transaction((batch: RequestLogRow[]) => {
    let i = 0;
    for (; i + SQLITE_ROWS_PER_INSERT <= batch.length; i += SQLITE_ROWS_PER_INSERT) {
      for (let r = 0; r < SQLITE_ROWS_PER_INSERT; r++) rowValues(batch[i + r]!, params, r * COLUMNS.length);
      many.run(params);
    }
    const single: unknown[] = new Array(COLUMNS.length);
    for (; i < batch.length; i++) {
      rowValues(batch[i]!, single, 0);
      one.run(single);
    }
    writeRollups(rollupRowsOf(batch));
  });
  return (rows) => insert.immediate(rows);
}

/**
 * Inserts many rows (the log pipeline batches them) and, in the same transaction, adds them to the
 * analytics rollups (`request-log-rollups.ts`): a batch counts in the rollups exactly when its rows are
 * in the log (a row refused, say a duplicate id, rolls its batch back with its rollups). On SQLite
 * cached prepared statements run in one transaction (multi-row, positional: binding 25 named
 * parameters per row showed in profiles), in the store's request-log thread when it has one; on
 * PostgreSQL one multi-row insert, then the upserts.
 */
export async function insertRequestLogs(store: Store, rows: RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (store.requestLogThread) return store.requestLogThread.run('insertRequestLogs', rows);
  if (store.sqlite) {
    let insert = sqliteInserts.get(store.sqlite);
    if (!insert) {
      insert = sqliteRequestLogInserter(store.sqlite);
      sqliteInserts.set(store.sqlite, insert);
    }
    insert(rows);
    return;
  }
  await store.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('request_logs')
      .values(rows.map((r) => ({ ...r, rolled_up: 1 })))
      .execute();
    await writeRollupsPostgres(trx, rollupRowsOf(rows));
  });
}

/** Filters of the request log (`GET /v1/logs`, its export and analytics); times in milliseconds. */
export interface RequestLogFilter {
  traceId?: string;
  startTime?: number;
  endTime?: number;
  status?: number;
  model?: string;
  provider?: string;
  apiKeyId?: string;
  userId?: string;
  cacheStatus?: string;
  /** `metadata.<key>` equals the value, for every entry (keys checked by the caller: letters, digits, `_ - . :`). */
  metadata?: ReadonlyArray<readonly [key: string, value: string]>;
}

/**
 * Who reads the log and what of it they see (`dataVisibility`): with `rows: 'own'` only the rows of
 * their user (none without a user); without `metadata` each row's `metadata` reads as null; unless
 * `bodies` is true the request and response bodies read as null.
 */
export interface LogViewer {
  readonly userId: string | null;
  readonly visibility: { readonly rows: 'all' | 'own'; readonly metadata: boolean; readonly bodies?: boolean };
}

/** Whether `db` talks to PostgreSQL (JSON access differs from SQLite's). */
export function onPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The rows of the scope's workspaces the viewer may see (the tenant and visibility conditions every read starts from). */
export function visibleRows(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer) {
  let q = db
    .selectFrom('request_logs')
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', [...scope.workspaceIds]);
  if (viewer.visibility.rows === 'own') q = viewer.userId === null ? q.where(sql<boolean>`1 = 0`) : q.where('user_id', '=', viewer.userId);
  return q;
}

/** `metadata.<key>` of a row as SQL text (the key is a bound parameter on both stores). */
function metadataValue(pg: boolean, key: string) {
  return pg ? sql<string>`(metadata::jsonb ->> ${key})` : sql<string>`json_extract(metadata, ${'$.' + JSON.stringify(key)})`;
}

/**
 * The filter's conditions on the columns the request log and its rollups share (status, model,
 * provider, API key, user, cache status), each value a bound parameter.
 */
export function whereDimensions<T extends 'request_logs' | 'request_log_rollups', O>(
  q: SelectQueryBuilder<Database, T, O>,
  f: RequestLogFilter,
): SelectQueryBuilder<Database, T, O> {
  // A column of both tables (checked here), compared with a bound value.
  const equal = (column: keyof RequestLogsTable & keyof RequestLogRollupsTable, value: string | number) =>
    sql<boolean>`${sql.ref(column)} = ${value}`;
  if (f.status !== undefined) q = q.where(equal('status', f.status));
  if (f.model !== undefined) q = q.where(equal('model', f.model));
  if (f.provider !== undefined) q = q.where(equal('provider', f.provider));
  if (f.apiKeyId !== undefined) q = q.where(equal('api_key_id', f.apiKeyId));
  if (f.userId !== undefined) q = q.where(equal('user_id', f.userId));
  if (f.cacheStatus !== undefined) q = q.where(equal('cache_status', f.cacheStatus));
  return q;
}

/** The visible rows narrowed by the filter (every value a bound parameter). */
export function filteredRows(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer, f: RequestLogFilter) {
  let q = visibleRows(db, scope, viewer);
  if (f.traceId !== undefined) q = q.where('trace_id', '=', f.traceId);
  if (f.startTime !== undefined) q = q.where('created_at', '>=', f.startTime);
  if (f.endTime !== undefined) q = q.where('created_at', '<', f.endTime);
  q = whereDimensions(q, f);
  if (f.metadata?.length) {
    const pg = onPostgres(db);
    for (const [key, value] of f.metadata) q = q.where(sql<boolean>`${metadataValue(pg, key)} = ${value}`);
  }
  return q;
}

function shown(row: RequestLogRow, viewer: LogViewer): RequestLogRow {
  const hidden = viewer.visibility.bodies !== true;
  return {
    ...row,
    created_at: Number(row.created_at),
    metadata: viewer.visibility.metadata ? row.metadata : 'null',
    request_body: hidden ? null : row.request_body,
    response_body: hidden ? null : row.response_body,
  };
}

/** A page of the rows the viewer may see in the tenant scope, newest first, with the filter's total. */
export async function listRequestLogs(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: RequestLogRow[]; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  const q = filteredRows(db, scope, viewer, f);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map((r) => shown(r, viewer)), total: Number(count?.n ?? 0) };
}

/** Where a keyset page starts: after this row of the newest-first order. */
export interface LogCursor {
  createdAt: number;
  id: string;
}

/**
 * The next `limit` rows of the newest-first order after `cursor` (keyset paging: each page is one
 * indexed range read, whatever the depth; an export of a million rows holds one page at a time).
 */
export async function readRequestLogPage(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  f: RequestLogFilter,
  cursor: LogCursor | null,
  limit: number,
): Promise<RequestLogRow[]> {
  if (scope.workspaceIds.length === 0) return [];
  let q = filteredRows(db, scope, viewer, f);
  if (cursor)
    q = q.where((eb) =>
      eb.or([eb('created_at', '<', cursor.createdAt), eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)])]),
    );
  const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => shown(r, viewer));
}

/** One row by id, when it is in the tenant scope and the viewer may see it. */
export async function getRequestLog(
  db: Kysely<Database>,
  scope: TenantScope,
  viewer: LogViewer,
  id: string,
): Promise<RequestLogRow | undefined> {
  if (scope.workspaceIds.length === 0) return undefined;
  const row = await visibleRows(db, scope, viewer).selectAll().where('id', '=', id).executeTakeFirst();
  return row && shown(row, viewer);
}

/**
 * Deletes at most `limit` rows written before `before` (ms), oldest first; returns how many. One
 * bounded statement, so a large backlog never holds a long lock: the retention job calls it until it
 * deletes fewer than `limit`. Run in the store's request-log thread when it has one (~80 ms per 5,000 rows
 * on SQLite, off the event loop).
 */
export async function deleteRequestLogsBefore(store: Store, before: number, limit: number): Promise<number> {
  if (store.requestLogThread) return store.requestLogThread.run('deleteRequestLogsBefore', before, limit);
  const db = store.db;
  const ids = db.selectFrom('request_logs').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit);
  const result = await db.deleteFrom('request_logs').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
