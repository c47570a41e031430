import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type { Database as SqliteHandle } from 'better-sqlite3';

/** How long a statement waits for the file's write lock, in all (the other connection's busy timeout too). */
export const SQLITE_BUSY_WAIT_MS = 5000;

/** Waits between tries for a locked file: short at first (a log batch holds it ~5–15 ms), then 20 ms. */
const BUSY_STEPS_MS = [1, 2, 4, 8, 16];
const BUSY_STEP_MAX_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The main connection's statements, tried again while the file is locked by the other connection (the request
 * log's thread, `request-log-worker.ts`): SQLite's own busy timeout would wait by sleeping in the calling thread,
 * the event loop's, so this connection has none (`busy_timeout = 0`) and waits here between tries instead,
 * without holding the loop. Only a statement that did nothing fails busy (`begin immediate`, a write outside a
 * transaction, rarely a read), so trying it again is safe.
 */
class WaitingConnection implements DatabaseConnection {
  constructor(private readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    for (let attempt = 0, waited = 0; ; attempt++) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        if ((err as { code?: unknown })?.code !== 'SQLITE_BUSY' || waited >= SQLITE_BUSY_WAIT_MS) throw err;
        const step = BUSY_STEPS_MS[attempt] ?? BUSY_STEP_MAX_MS;
        await sleep(step);
        waited += step;
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's SQLite driver for the main connection: its transactions begin `IMMEDIATE`, taking the file's write
 * lock at their start, not at their first write. In WAL mode a deferred transaction that read before the request
 * log's thread committed could not then write: SQLite refuses it at once with `SQLITE_BUSY_SNAPSHOT`, which no
 * waiting cures. A transaction that holds the lock from its start reads the latest data and always may write.
 * A connection without a busy timeout (the main one) waits for a locked file as `WaitingConnection` does; one
 * with a busy timeout (the request log's thread, which may sleep) lets SQLite wait.
 */
class ImmediateSqliteDriver extends SqliteDriver implements Driver {
  private connection?: DatabaseConnection;

  constructor(private readonly database: SqliteHandle) {
    super({ database });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    return (this.connection ??=
      this.database.pragma('busy_timeout', { simple: true }) === 0 ? new WaitingConnection(connection) : connection);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** `SqliteDialect` with `ImmediateSqliteDriver`, over a better-sqlite3 connection. */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: { database: SqliteHandle }) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings.database);
  }
}
