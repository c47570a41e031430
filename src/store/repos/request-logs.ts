import type { Store } from '../store.js';
import type { RequestLogsTable } from '../schema.js';

/** One row of the request log. */
export type RequestLogRow = RequestLogsTable;

const COLUMNS = [
  'id', 'organisation_id', 'workspace_id', 'api_key_id', 'trace_id', 'endpoint', 'provider', 'model', 'status', 'stream', 'cache_status', 'config_id',
  'prompt_id', 'target_path', 'retry_count', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'latency_ms', 'metadata', 'error', 'hook_results', 'created_at',
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

const sqliteInserts = new WeakMap<object, (rows: RequestLogRow[]) => void>();

/**
 * Inserts many rows (the log pipeline batches them). On SQLite one cached prepared statement runs
 * in a transaction; on PostgreSQL one multi-row insert.
 */
export async function insertRequestLogs(store: Store, rows: RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (store.sqlite) {
    let insert = sqliteInserts.get(store.sqlite);
    if (!insert) {
      const stmt = store.sqlite.prepare(`insert into request_logs (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => '@' + c).join(', ')})`);
      insert = store.sqlite.transaction((batch: RequestLogRow[]) => {
        for (const row of batch) stmt.run(row);
      });
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
  let q = store.db.selectFrom('request_logs').where('workspace_id', 'in', f.workspaceIds);
  if (f.traceId) q = q.where('trace_id', '=', f.traceId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map((r) => ({ ...r, created_at: Number(r.created_at) })), total: Number(count?.n ?? 0) };
}
