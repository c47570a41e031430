import type { Database as SqliteHandle } from 'better-sqlite3';

/**
 * The settings every connection to the gateway's SQLite file runs with, the main one and the request
 * log's thread alike: WAL (readers never wait for the writer; the mode is stored in the file),
 * `synchronous = NORMAL` (durable at checkpoints, safe against corruption), foreign keys enforced. A
 * statement that finds the file locked by the other connection waits up to `busyTimeoutMs` in SQLite,
 * sleeping in the calling thread: the request log's thread may; the main connection passes 0 and waits
 * between tries instead, off the event loop (`ImmediateSqliteDialect`).
 */
export function configureSqliteConnection(db: SqliteHandle, busyTimeoutMs: number): SqliteHandle {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  return db;
}
