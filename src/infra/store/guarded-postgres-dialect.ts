import {
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { toStoreError } from './store-errors.js';

type CompileQuery = Parameters<NonNullable<Driver['savepoint']>>[2];

/** What PostgreSQL stores instead of U+0000, which its text type cannot hold. */
const NUL_REPLACEMENT = '\uFFFD';

/** Whether a parameter holds U+0000: a string, or a string element of an array (`unnest` batch writes). */
function hasNul(parameters: readonly unknown[]): boolean {
  for (const p of parameters) {
    if (typeof p === 'string' && p.includes('\u0000')) return true;
    if (Array.isArray(p) && p.some((e) => typeof e === 'string' && e.includes('\u0000'))) return true;
  }
  return false;
}

const clean = (v: unknown): unknown => (typeof v === 'string' ? v.replaceAll('\u0000', NUL_REPLACEMENT) : v);

/** The query with U+0000 in its string parameters (and their arrays' strings) replaced by U+FFFD (the query itself when none has one). */
function withoutNul(query: CompiledQuery): CompiledQuery {
  if (!hasNul(query.parameters)) return query;
  const parameters = query.parameters.map((p) => (Array.isArray(p) ? p.map(clean) : clean(p)));
  return { ...query, parameters };
}

/** A connection whose queries store no NUL and whose connection failures are `store_unavailable`. */
class GuardedConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(withoutNul(query));
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(withoutNul(query), chunkSize);
    } catch (err) {
      throw toStoreError(err);
    }
  }
}

/** Kysely's PostgreSQL driver behind `GuardedConnection`s; transactions run through the guarded connection. */
class GuardedDriver implements Driver {
  private readonly guarded = new WeakMap<DatabaseConnection, GuardedConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let connection: DatabaseConnection;
    try {
      connection = await this.inner.acquireConnection();
    } catch (err) {
      throw toStoreError(err);
    }
    let guarded = this.guarded.get(connection);
    if (!guarded) {
      guarded = new GuardedConnection(connection);
      this.guarded.set(connection, guarded);
    }
    return guarded;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection instanceof GuardedConnection ? connection.inner : connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * Kysely's PostgreSQL dialect with two guards on every query, in one place for every repository:
 * U+0000 in a string parameter is stored as U+FFFD (PostgreSQL text cannot hold NUL; a provider's
 * answer or a client's message may carry one and must not fail the write), and a connection failure
 * (terminated backend, refused connection, server shutting down) is thrown as 503 `store_unavailable`.
 */
export class GuardedPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new GuardedDriver(super.createDriver());
  }
}
