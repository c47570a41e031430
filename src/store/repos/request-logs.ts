import type { Store } from '../store.js';
import type { RequestLogsTable } from '../schema.js';

/** One row of the request log. */
export type RequestLogRow = RequestLogsTable;

const COLUMNS = [
  'id', 'organisation_id', 'workspace_id', 'api_key_id', 'trace_id', 'endpoint', 'provider', 'model', 'status', 'stream', 'cache_status', 'config_id',
  'prompt_id', 'target_path', 'retry_count', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'latency_ms', 'metadata', 'error', 'hook_results', 'created_at',
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

/** Rows per multi-row INSERT on SQLite (24 columns each: well under SQLite's 32,766 parameters). */
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
 * transaction (multi-row, positional: binding 24 named parameters per row showed in profiles); on
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

export interface RequestLogFilter {
  workspaceIds: string[];
  limit: number;
  offset: number;
  traceId?: string;
}

export async function listRequestLogs(store: Store, f: RequestLogFilter): Promise<{ rows: RequestLogRow[]; total: number }> {
  if (f.workspaceIds.length === 0) return { rows: [], total: 0 };
  let q = store.db.selectFrom('request_logs').where('workspace_id', 'in', f.workspaceIds);
  if (f.traceId) q = q.where('trace_id', '=', f.traceId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map((r) => ({ ...r, created_at: Number(r.created_at) })), total: Number(count?.n ?? 0) };
}
