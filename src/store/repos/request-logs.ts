import { sql, type Kysely } from 'kysely';
import type { Store } from '../store.js';
import type { Database, RequestLogsTable } from '../schema.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';

/** One row of the request log. */
export type RequestLogRow = RequestLogsTable;

const COLUMNS = [
  'id', 'organisation_id', 'workspace_id', 'api_key_id', 'user_id', 'trace_id', 'endpoint', 'provider', 'model', 'status', 'stream', 'cache_status', 'config_id',
  'prompt_id', 'target_path', 'retry_count', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'latency_ms', 'metadata', 'error', 'hook_results', 'created_at',
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

/** Rows per multi-row INSERT on SQLite (25 columns each: well under SQLite's 32,766 parameters). */
const SQLITE_ROWS_PER_INSERT = 32;

const sqliteInserts = new WeakMap<object, (rows: RequestLogRow[]) => void>();

/** One transaction per batch: multi-row INSERTs with positional parameters, then single rows for the rest. */
function sqliteInsert(db: NonNullable<Store['sqlite']>): (rows: RequestLogRow[]) => void {
  const row = `(${COLUMNS.map(() => '?').join(', ')})`;
  const prefix = `insert into request_logs (${COLUMNS.join(', ')}) values `;
  const one = db.prepare(prefix + row);
  const many = db.prepare(prefix + Array.from({ length: SQLITE_ROWS_PER_INSERT }, () => row).join(', '));
  const params: unknown[] = new Array(SQLITE_ROWS_PER_INSERT * COLUMNS.length);
  return db.transaction((batch: RequestLogRow[]) => {
    let i = 0;
    for (; i + SQLITE_ROWS_PER_INSERT <= batch.length; i += SQLITE_ROWS_PER_INSERT) {
      let p = 0;
      for (let r = i; r < i + SQLITE_ROWS_PER_INSERT; r++) for (const c of COLUMNS) params[p++] = batch[r]![c];
      many.run(params);
    }
    for (; i < batch.length; i++) one.run(COLUMNS.map((c) => batch[i]![c]));
  });
}

/**
 * Inserts many rows (the log pipeline batches them). On SQLite cached prepared statements run in one
 * transaction (multi-row, positional: binding 25 named parameters per row showed in profiles); on
 * PostgreSQL one multi-row insert.
 */
export async function insertRequestLogs(store: Store, rows: RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (store.sqlite) {
    let insert = sqliteInserts.get(store.sqlite);
    if (!insert) {
      insert = sqliteInsert(store.sqlite);
      sqliteInserts.set(store.sqlite, insert);
    }
    insert(rows);
    return;
  }
  await store.db.insertInto('request_logs').values(rows).execute();
}

/** Filters of the request log (`GET /v1/logs`); times in milliseconds. */
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
}

/**
 * Who reads the log and what of it they see (`dataVisibility`): with `rows: 'own'` only the rows of
 * their user (none without a user); without `metadata` each row's `metadata` reads as null.
 */
export interface LogViewer {
  readonly userId: string | null;
  readonly visibility: { readonly rows: 'all' | 'own'; readonly metadata: boolean };
}

/** The rows of the scope's workspaces the viewer may see (the tenant and visibility conditions every read starts from). */
function visibleRows(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer) {
  let q = db.selectFrom('request_logs').where('organisation_id', '=', scope.organisationId).where('workspace_id', 'in', [...scope.workspaceIds]);
  if (viewer.visibility.rows === 'own') q = viewer.userId === null ? q.where(sql<boolean>`1 = 0`) : q.where('user_id', '=', viewer.userId);
  return q;
}

function shown(row: RequestLogRow, viewer: LogViewer): RequestLogRow {
  return { ...row, created_at: Number(row.created_at), metadata: viewer.visibility.metadata ? row.metadata : 'null' };
}

/** A page of the rows the viewer may see in the tenant scope, newest first, with the filter's total. */
export async function listRequestLogs(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer, f: RequestLogFilter, page: { limit: number; offset: number }): Promise<{ rows: RequestLogRow[]; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  let q = visibleRows(db, scope, viewer);
  if (f.traceId !== undefined) q = q.where('trace_id', '=', f.traceId);
  if (f.startTime !== undefined) q = q.where('created_at', '>=', f.startTime);
  if (f.endTime !== undefined) q = q.where('created_at', '<', f.endTime);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.model !== undefined) q = q.where('model', '=', f.model);
  if (f.provider !== undefined) q = q.where('provider', '=', f.provider);
  if (f.apiKeyId !== undefined) q = q.where('api_key_id', '=', f.apiKeyId);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.cacheStatus !== undefined) q = q.where('cache_status', '=', f.cacheStatus);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map((r) => shown(r, viewer)), total: Number(count?.n ?? 0) };
}

/** One row by id, when it is in the tenant scope and the viewer may see it. */
export async function getRequestLog(db: Kysely<Database>, scope: TenantScope, viewer: LogViewer, id: string): Promise<RequestLogRow | undefined> {
  if (scope.workspaceIds.length === 0) return undefined;
  const row = await visibleRows(db, scope, viewer).selectAll().where('id', '=', id).executeTakeFirst();
  return row && shown(row, viewer);
}
