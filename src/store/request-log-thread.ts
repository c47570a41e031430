/**
 * The worker thread that writes the request log's batches to the SQLite file (started by
 * `RequestLogThread`, request-log-worker.ts). It holds a connection of its own and runs the same
 * inserter as the main connection would; the main thread only hands the rows over.
 *
 * Messages in: `{ id, rows }` (a batch to write) or `{ close: true }`. Messages out: `{ id }` once the
 * batch is committed, or `{ id, error: { message, code } }` when it was not (nothing of it was written).
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from './sqlite-connection.js';
import { sqliteRequestLogInserter, type RequestLogRow } from './repos/request-logs.js';

if (!parentPort) throw new Error('request-log-thread.js runs as a worker thread (see request-log-worker.ts)');
const port = parentPort;
const db = configureSqliteConnection(new SQLite((workerData as { path: string }).path));
const insert = sqliteRequestLogInserter(db);

port.on('message', (message: { id: number; rows: RequestLogRow[] } | { close: true }) => {
  if ('close' in message) {
    db.close();
    port.close();
    return;
  }
  try {
    insert(message.rows);
    port.postMessage({ id: message.id });
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    port.postMessage({ id: message.id, error: { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined } });
  }
});
