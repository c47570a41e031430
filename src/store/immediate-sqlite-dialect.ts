import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite driver, whose transactions begin `IMMEDIATE`: they take the file's write lock at their
 * start (waiting for it up to the busy timeout), not at their first write. The request log is written by
 * a second connection, in a worker thread (`request-log-worker.ts`). In WAL mode a deferred transaction
 * that read before that connection committed could not then write: SQLite refuses it at once with
 * `SQLITE_BUSY_SNAPSHOT` (the busy timeout does not apply). A transaction that holds the lock from its
 * start reads the latest data and always may write.
 */
class ImmediateSqliteDriver extends SqliteDriver implements Driver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** `SqliteDialect` with `ImmediateSqliteDriver`. */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}
