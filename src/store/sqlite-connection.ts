import type { Database as SqliteHandle } from 'better-sqlite3';

/**
 * The settings every connection to the gateway's SQLite file runs with, the main one and the request
 * log's writer thread alike: WAL (readers never wait for the writer; the mode is stored in the file),
 * `synchronous = NORMAL` (durable at checkpoints, safe against corruption), foreign keys enforced, and
 * a writer that finds the file locked by the other connection waits for it up to 5 s.
 */
export function configureSqliteConnection(db: SqliteHandle): SqliteHandle {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
