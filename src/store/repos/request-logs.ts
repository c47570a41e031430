import type { Store } from '../store.js';
import type { RequestLogsTable } from '../schema.js';

/** One row of the request log. */
export type RequestLogRow = RequestLogsTable;

/** Inserts many rows in one statement (the log pipeline batches them). */
export async function insertRequestLogs(store: Store, rows: RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
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
